// Package reload serves lookups from a sift filter file and follows the
// file as it is rebuilt: a server opens the path once and never writes
// reload code of its own.
//
//	f, err := reload.Open("/srv/blocklist.sift",
//		reload.WithOnError(func(err error) { log.Print(err) }))
//	if err != nil { ... }
//	defer f.Close()
//	...
//	if f.ContainsString(ip) { ... } // from any number of goroutines
//
// # Replacing the file
//
// Every interval (WithInterval, default one second) the Filter stats the
// path and reads its first 128 bytes (the header, which names the build);
// when they show another file, or the same file changed (inode, size,
// modification time or header), the Filter reads it, checks the header
// and the payload's CRC-32C, and only then swaps it in atomically: a
// lookup sees the old file or the new one, never neither. A file that
// fails (damaged, cut short, still being written, of a kind it cannot
// serve, removed, a directory or a FIFO, which it never opens) is reported
// to WithOnError and returned by Err, once per file, and the old file
// stays served. Reload checks at once (for a SIGHUP handler, or a
// deployment that knows when it replaced the file).
//
// The best way to publish a new filter is still to rename a complete file
// over the path (sift build -o, sift merge -o and sift.WriteFile do
// exactly that): the new file is served at the next poll and nothing is
// ever reported. But an operator's cp over the served file (which
// truncates it and writes it in place), truncate, rsync --inplace, or a
// same-size rewrite cannot harm the Filter either: it serves a copy (see
// "Copy or mapping"), so the lookups never see the file change; the poll
// sees a file that is short or fails its checksum while the copy runs,
// reports that once, and serves the new file at the first poll after the
// copy completes, without another signal. A write in place keeps the
// inode, and may keep the size and the modification time (coarse
// timestamps, or a writer that sets it: cp -p, rsync -t, tar): the
// header's checksums still tell the complete file apart, a file that
// failed is read again once its status-change time moves (on Unix
// systems, where every write moves it and no writer can set it), and a
// failed read that began within two seconds of the file's last change (the
// later of the two times, or when the Filter first saw the file as it is if
// that is earlier: a time ahead of this machine's clock counts from then)
// is retried at the next poll even when nothing seems to have changed. On
// Unix systems a file is held open while it is served (one descriptor, no
// mapping), so its inode number cannot pass to another file and the stat
// comparison stays exact (so is the file that failed last); the disk space
// of such a file that is removed is freed when the next file is served, or
// at Close. (On Windows, where an open file cannot be renamed over, files
// are not held open.)
//
// # Copy or mapping
//
// By default the Filter reads each file into memory of its own (64-byte
// aligned, an anonymous mapping from 4 MiB up, advised for transparent huge
// pages on Linux) and serves lookups from that copy: no other process can
// reach the served bytes, whatever it does to the path or the file. The
// cost is one sequential read per reload, on top of the checksum pass
// that a mapping pays too, and memory: the filter's size while it is
// served, twice that during a swap (the old copy is freed once its last
// lookup has finished). Lookups cost the same on either memory
// (BenchmarkLookupCopyVsMmap; DESIGN.md §11 has the figures).
//
// WithMmap serves a read-only mapping of the file instead (zero copy):
// opening costs the checksum pass only, and processes that serve one file
// share its page cache. The file must then only be replaced by rename:
// truncating a mapped file makes the next lookup that touches a page past
// its new end fault with SIGBUS, which no Go program can recover from, and
// rewriting it in place changes the bits under running lookups, which can
// then report keys absent that both versions hold. Keeping the mapping and
// containing the fault instead (debug.SetPanicOnFault and a recover around
// each lookup) was measured and rejected: it costs every lookup (figures in
// bench/README.md), it cannot serve the old filter once its
// pages are gone, and it cannot prevent those false negatives.
//
// Polling was chosen over inotify: a check costs tens of microseconds (a
// stat alone 3.5 µs, with the header's read about 20 µs on the 2-core
// development VM, BenchmarkPoll: one a second is two hundred-thousandths
// of a core), it follows a path through renames, symbolic-link swaps
// (Kubernetes ConfigMaps) and network file systems, where inotify sees
// nothing, and it is portable. Its only cost is latency, at most one
// interval; Reload removes even that.
//
// # Versions
//
// Version names the file being served: its kind, the generation recorded
// in its header at build time (sift build -generation, sift.WriteFile; see
// FORMAT.md), its checksums, size and modification time, and when it was
// loaded, so a fleet can report which build each server holds.
//
// # Concurrency and memory
//
// Lookups (Contains, ContainsString, ContainsUint64, Acquire) are lock-free,
// allocate nothing and never wait for a reload: a lookup counts itself in
// one of a few counters of the file's generation (chosen by the goroutine's
// stack, so each stays in one core's cache) and checks that the generation
// is still current. A swap publishes the new generation and frees the old
// one (its copy, or its mapping) only when its counters show no lookup in
// flight, so no lookup ever reads freed memory, and a key present in both
// files is never reported absent. The cost against a direct View lookup is
// two atomic adds on a counter in the core's own cache, two loads and the
// call through sift.View into the kind's view: about 12 ns a lookup
// (BenchmarkLookup; the figures are in bench/README.md). Where that matters,
// Acquire one Snapshot for a batch of lookups and pay it once. Close waits
// for the lookups in flight and frees everything (memory, mappings,
// descriptors); lookups after Close panic with an error wrapping ErrClosed.
//
// # Errors, zero value and Close
//
// Open and Reload return, and WithOnError receives, errors wrapping
// package sift's sentinels: the decoding errors (sift.ErrChecksum,
// ErrTruncated, ErrMagic, ...), ErrKind for a kind that cannot be served,
// sift.ErrTooLarge beyond WithMaxSize, and the *fs.PathError of a file
// that cannot be opened; each message says which version is still served.
// A zero Filter, like a closed one, serves nothing: Reload returns an error
// wrapping ErrClosed and lookups panic with one (the documented programmer
// error: "lookup on a zero Filter, never opened", or "lookup on a closed
// Filter"); Version returns the zero Version. A Snapshot released twice,
// or used after its Release, panics with an error wrapping ErrClosed too,
// and never reaches the file (see Snapshot).
//
// # Kinds
//
// The file may hold a blocked filter (blocked.Filter or Concurrent), a
// cuckoo filter or a split-block filter, the kinds served in place from
// the file's bytes, or a window (blocked.Window or ConcurrentWindow), which
// is decoded into memory of its own and goes on forgetting by
// blocked.WithClock's default clock while it is served, as sift.Open
// serves it: a window saved with a clock of its own (a test's simulated
// clock) is judged by the process's clock here, and may read as empty;
// restore it with blocked.ReadWindow (or ReadConcurrentWindow,
// WindowFromBytes) and blocked.WithClock instead. Consecutive files may
// differ in kind, size and seed.
// Contains of the key's bytes means the same key for every kind;
// ContainsUint64(x) is the key of x's eight little-endian bytes (a
// split-block filter's INT64 value). For batch lookups, Acquire a
// Snapshot, hash with its Hash and call its ContainsHashes: hashes belong
// to one file.
package reload
