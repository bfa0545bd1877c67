package blocked_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/sift-go/sift/blocked"
)

// Replay protection: a nonce is refused if it was seen in the last five
// minutes. The clock is simulated here; a server leaves WithClock out and
// the window reads time.Now.
func ExampleWindow() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	// 100,000 nonces per 5 minutes, at most 0.1% refused wrongly; four
	// generations, so a nonce is forgotten at the latest 5 + 5/3 minutes
	// after its last use.
	seen, err := blocked.NewWindow(100_000, 0.001, 5*time.Minute, blocked.WithClock(clock))
	if err != nil {
		panic(err)
	}
	defer seen.Close()
	accept := func(nonce string) bool { return seen.AddNewString(nonce) }

	fmt.Println(accept("n1"), accept("n2"), accept("n1"))
	now = now.Add(4 * time.Minute)
	fmt.Println("after 4 minutes, n1 again:", accept("n1"))

	// Save and restore across a restart: the window resumes by the clock.
	var file bytes.Buffer
	if _, err := seen.WriteTo(&file); err != nil {
		panic(err)
	}
	now = now.Add(30 * time.Second)
	restored, err := blocked.ReadWindow(&file, blocked.WithClock(clock))
	if err != nil {
		panic(err)
	}
	defer restored.Close()
	fmt.Println("after the restart, n2 seen:", restored.ContainsString("n2"))
	now = now.Add(10 * time.Minute)
	fmt.Println("ten minutes later, n2 seen:", restored.ContainsString("n2"))
	// Output:
	// true true false
	// after 4 minutes, n1 again: false
	// after the restart, n2 seen: true
	// ten minutes later, n2 seen: false
}

// A server whose handlers share one window saves it while they run, and
// resumes it after a restart.
func ExampleConcurrentWindow() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	seen, err := blocked.NewConcurrentWindow(100_000, 0.001, 5*time.Minute, blocked.WithClock(clock))
	if err != nil {
		panic(err)
	}
	fmt.Println(seen.AddNewString("n1"), seen.AddNewString("n1"))

	// Handlers may go on adding while WriteTo copies (sift.WriteFile
	// takes the window as it is, and replaces the file atomically).
	var file bytes.Buffer
	if _, err := seen.WriteTo(&file); err != nil {
		panic(err)
	}
	seen.Close()

	now = now.Add(time.Minute)
	restored, err := blocked.ReadConcurrentWindow(&file, blocked.WithClock(clock))
	if err != nil {
		panic(err)
	}
	defer restored.Close()
	fmt.Println("after the restart, n1 new:", restored.AddNewString("n1"))
	// Output:
	// true false
	// after the restart, n1 new: false
}
