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
// Publish a new filter by renaming a complete file over the path (sift
// build -o, sift merge -o and sift.WriteFile do exactly that). Every
// interval (WithInterval, default one second) the Filter stats the path
// and reads its first 128 bytes (the header, which names the build); when
// they show another file (another inode, size, modification time or
// header) the Filter opens it with its kind's Open, which checks the header and
// the payload's CRC-32C, and only then swaps it in atomically: a lookup
// sees the old file or the new one, never neither. A file that fails
// (damaged, truncated, a kind it cannot serve, removed) is reported to
// WithOnError and returned by Err, once per file, and the old file stays
// served. Reload checks at once (for a SIGHUP handler, or a deployment
// that knows when it replaced the file). Never write a served file in
// place: it is mapped, and a mapping of a file that shrinks faults.
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
// Lookups (Contains, ContainsString, ContainsUint64, Acquire) are
// lock-free, allocate nothing and never wait for a reload: a lookup counts
// itself in one of a few counters of the file's generation (chosen by the
// goroutine's stack, so each stays in one core's cache) and checks that the
// generation is still current. A swap publishes the new generation and
// unmaps the old one only when its counters show no lookup in flight, so no
// lookup ever reads an unmapped page, and a key present in both files is
// never reported absent. The cost against a direct View lookup is two
// atomic adds on a counter in the core's own cache, two loads and a
// switch on the kind: about 10 ns a lookup on the development VM (8 ns
// for a blocked View's ContainsString of a filter in cache, 18 ns through
// a Filter; BenchmarkLookup). Where that matters, Acquire one Snapshot for
// a batch of lookups and pay it once. Close waits for the lookups in flight and unmaps
// everything; lookups after Close panic with an error wrapping ErrClosed.
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
// error); Version returns the zero Version.
//
// # Kinds
//
// The file may hold a blocked filter (blocked.Filter or Concurrent), a
// cuckoo filter or a split-block filter: the kinds that map in place.
// Consecutive files may differ in kind, size and seed. Contains of the
// key's bytes means the same key for every kind; ContainsUint64(x) is the
// key of x's eight little-endian bytes (a split-block filter's INT64
// value). For batch lookups, Acquire a Snapshot, hash with its Hash and
// call its ContainsHashes: hashes belong to one file.
package reload
