package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progressMode says when a command reports progress on stderr.
type progressMode int

const (
	progressAuto progressMode = iota // when stderr is a terminal
	progressOn                       // always (-progress)
	progressOff                      // never (-q)
)

// progress is a meter on stderr, redrawn a few times a second by its own
// goroutine from counters the worker updates with atomic adds. On a
// terminal it rewrites one line in place; forced onto a file or pipe it
// prints a line every few seconds and one with the final state of each
// phase, so even a run shorter than the interval shows its progress. A nil
// *progress is valid and does nothing, so workers call it unconditionally.
type progress struct {
	w        io.Writer
	tty      bool
	label    atomic.Pointer[string]
	total    atomic.Int64 // bytes expected, or -1
	bytes    atomic.Int64
	keys     atomic.Int64
	start    time.Time
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
	mu       sync.Mutex // serializes drawing
	lastLen  int
	interval time.Duration
}

// newProgress starts a meter on stderr when mode and the terminal allow it,
// and returns nil otherwise.
func newProgress(stderr io.Writer, mode progressMode, label string, total int64) *progress {
	if mode == progressOff {
		return nil
	}
	tty := isTerminal(stderr)
	if mode == progressAuto && !tty {
		return nil
	}
	p := &progress{w: stderr, tty: tty, start: time.Now(), stop: make(chan struct{}), interval: 200 * time.Millisecond}
	if !tty {
		p.interval = 5 * time.Second
	}
	p.label.Store(&label)
	p.total.Store(total)
	p.done.Add(1)
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer p.done.Done()
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// phase switches the meter to a new stage of work, resetting its counters
// (on a file or pipe, after printing the final state of the stage before).
func (p *progress) phase(label string, total int64) {
	if p == nil {
		return
	}
	p.drawFinal()
	p.label.Store(&label)
	p.total.Store(total)
	p.bytes.Store(0)
	p.keys.Store(0)
	p.mu.Lock()
	p.start = time.Now()
	p.mu.Unlock()
}

func (p *progress) addBytes(n int64) {
	if p != nil {
		p.bytes.Add(n)
	}
}

func (p *progress) addKeys(n int64) {
	if p != nil {
		p.keys.Add(n)
	}
}

// drawFinal prints the current phase's final state on a file or pipe (a
// terminal's line is redrawn in place and erased at the end instead).
func (p *progress) drawFinal() {
	if !p.tty && *p.label.Load() != "" {
		p.drawLine(true)
	}
}

func (p *progress) draw() { p.drawLine(false) }

// drawLine draws the meter; final is the last draw of a phase, which gives
// the rate however short the phase was (a running meter waits 0.1 s for a
// meaningful one).
func (p *progress) drawLine(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start)
	bytes, keys, total := p.bytes.Load(), p.keys.Load(), p.total.Load()
	var b strings.Builder
	b.WriteString(*p.label.Load())
	if total > 0 {
		fmt.Fprintf(&b, "  %s / %s (%.1f%%)", sizeString(bytes), sizeString(total), 100*float64(bytes)/float64(total))
	} else if bytes > 0 {
		fmt.Fprintf(&b, "  %s", sizeString(bytes))
	}
	if keys > 0 {
		fmt.Fprintf(&b, "  %s keys", countString(keys))
		if s := elapsed.Seconds(); s > 0.1 || final && s > 0 {
			fmt.Fprintf(&b, "  %s keys/s", countString(int64(float64(keys)/s)))
		}
	}
	if total > 0 && bytes > 0 && bytes < total && elapsed > time.Second {
		eta := time.Duration(float64(elapsed) * float64(total-bytes) / float64(bytes))
		fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
	}
	line := b.String()
	if p.tty {
		pad := ""
		if n := p.lastLen - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
		p.lastLen = len(line)
	} else {
		fmt.Fprintf(p.w, "%s\n", line)
	}
}

// clearLocked erases the meter's line on a terminal (p.mu held); the
// meter redraws at its next tick.
func (p *progress) clearLocked() {
	if p.tty && p.lastLen > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.lastLen))
		p.lastLen = 0
	}
}

// message writes the line format makes to w (stderr) on a line of its
// own: the meter's line is erased first, under the lock its ticks take,
// so that none redraws it between the two (erasing and then writing
// unlocked let one in, and the message shared the meter's line).
func (p *progress) message(w io.Writer, format string, args ...any) {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.clearLocked()
	}
	fmt.Fprintf(w, format, args...)
}

// finish stops the meter and erases its line, so what follows on stderr
// starts on a clean line. It may be called more than once.
func (p *progress) finish() {
	if p == nil {
		return
	}
	stopped := false
	p.stopOnce.Do(func() { close(p.stop); stopped = true })
	p.done.Wait()
	if stopped {
		p.drawFinal()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := osFile(w)
	return ok && fileIsTerminal(f)
}

// sizeString formats a byte count with a binary unit.
func sizeString(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// countString formats a count compactly: 950, 12.3k, 4.56M, 1.20G.
func countString(n int64) string {
	switch {
	case n < 10_000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2fG", float64(n)/1e9)
}

// filterProgress is the progress mode of the commands that stream lines
// through a filter to stdout (query, dedup): shown with -progress, else
// only when stdout is not a terminal (the lines printed would interleave
// with the meter), else never.
func filterProgress(show bool, stdout io.Writer) progressMode {
	switch {
	case show:
		return progressOn
	case !isTerminal(stdout):
		return progressAuto
	}
	return progressOff
}
