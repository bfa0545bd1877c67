package clock

import (
	"testing"
	"time"
)

// Steady never goes back and agrees with time.Now while nobody sets the
// system clock.
func TestSteady(t *testing.T) {
	prev := Steady().UnixNano()
	for range 1000 {
		now := Steady().UnixNano()
		if now < prev {
			t.Fatalf("Steady went back: %d after %d", now, prev)
		}
		prev = now
	}
	if d := time.Duration(time.Now().UnixNano() - Steady().UnixNano()); d < -time.Second || d > time.Second {
		t.Errorf("Steady is %v from time.Now (was the system clock set during the test?)", d)
	}
}
