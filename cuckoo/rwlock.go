package cuckoo

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// lockStripes is the number of reader counters of a stripedRWMutex.
const lockStripes = 16

// stripedRWMutex is Concurrent's reader-writer lock. Its shared side, which
// every Add and Remove takes, is one atomic add on one of lockStripes
// counters, chosen by the address of the caller's stack, so goroutines on
// different cores mostly use different cache lines; sync.RWMutex's shared
// side is an atomic add on one word that every core writes, whose cache line
// then moves between cores on every Add. The exclusive side (relocation
// chains, victim changes, Reset, snapshots) is dearer: it raises a flag and
// waits until every counter is zero.
//
// Why it excludes: a reader increments its counter and then loads the flag;
// a writer stores the flag and then loads the counters. Go's atomics are
// sequentially consistent, so at least one of them sees the other: either
// the reader sees the flag and backs out, or the writer sees the count and
// waits for it to drain. Writers are serialized by w, which they hold for
// their whole critical section; a reader that finds the flag up waits on w.
type stripedRWMutex struct {
	w       sync.Mutex
	writing atomic.Bool
	readers [lockStripes]struct {
		n atomic.Int64
		_ [120]byte // a counter per 128 bytes: its line and the adjacent one the prefetcher pairs with it
	}
}

// RLock takes the lock shared and returns the counter to give RUnlock.
func (l *stripedRWMutex) RLock() *atomic.Int64 {
	var probe byte
	// Goroutine stacks are at least 8 KiB apart: mix the bits above that.
	i := uint64(uintptr(unsafe.Pointer(&probe))>>13) * 0x9e3779b97f4a7c15 >> (64 - 4)
	r := &l.readers[i%lockStripes].n
	for {
		r.Add(1)
		if !l.writing.Load() {
			return r
		}
		r.Add(-1)
		l.w.Lock() // wait for the writer
		l.w.Unlock()
	}
}

// RUnlock releases a shared hold taken by RLock.
func (l *stripedRWMutex) RUnlock(r *atomic.Int64) { r.Add(-1) }

// Lock takes the lock exclusively: it waits for the other writers, then
// for the readers in flight.
func (l *stripedRWMutex) Lock() {
	l.w.Lock()
	l.writing.Store(true)
	for i := range l.readers {
		for spins := 0; l.readers[i].n.Load() != 0; spins++ {
			if spins >= 32 {
				runtime.Gosched()
			}
		}
	}
}

// Unlock releases the exclusive hold.
func (l *stripedRWMutex) Unlock() {
	l.writing.Store(false)
	l.w.Unlock()
}
