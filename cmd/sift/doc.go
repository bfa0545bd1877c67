// Command sift builds, queries, inspects and benchmarks sift's
// approximate-membership filters from the command line.
//
// Usage:
//
//	sift build [-kind blocked|cuckoo|classic|sbbf] [-guava] [-n N | -blocks B [-k K] | -buckets N] [-fpp P]
//	           [-seed S] [-bits 8|16] [-copies] [-generation G] [-j N] [-f N [-d C]] [-progress | -q] -o FILE [INPUT...]
//	sift merge [-generation G] [-q] -o FILE SHARD.sift...
//	sift query [-v] [-c] [-q] [-f N [-d C]] [-kind K | -guava] [-as-of T] [-progress] FILE [INPUT...]
//	sift dedup [-n N] [-fpp P] [-f N [-d C]] [-state FILE] [-progress] [INPUT...]
//	sift dedup -window D [-generations G] [-time-field N [-time-format F]] [-n N] [-fpp P] [-f N [-d C]] [-state FILE] [-progress] [INPUT...]
//	sift info [-kind K | -guava] FILE...
//	sift bench [-n N] [-fpp P] [-kind blocked|cuckoo|classic|all] [-seed S] [-probes M]
//	sift bench -kernels [-n N] [-seed S]
//	sift version
//	sift help [command]
//
// # Keys
//
// Keys are lines: the INPUT files are read in order (standard input when none
// is given, or where "-" is named), streamed through a buffer (never loaded
// whole), and each line without its "\n" or "\r\n" terminator is one key,
// hashed as the filter does (XXH3-64 with the filter's seed; murmur3, as
// Guava, for the classic filter). Lines may be up to 64 MiB long, not
// counting the terminator. An input may be a FIFO or a device, read once,
// as any program reads it.
// With -f N (N from 1; -f 0 is an error) and optionally -d C the key is the
// line's N-th field instead:
// fields are separated by runs of spaces and tabs, as awk splits them, or by
// each byte C, as cut -d does; query still prints whole lines, so it can
// filter log lines by one of their fields. Empty keys (empty lines, lines
// with fewer fields) are not keys: build skips them, query never selects
// them (and -v always does); dedup, as awk, counts the empty key as one.
//
// # build
//
// build writes a filter holding every key of its inputs. -kind blocked (the
// default) makes a cache-line blocked Bloom filter, the fastest to query.
// -kind cuckoo makes a cuckoo filter (16-bit fingerprints, or 8 with -bits 8
// or when -fpp is about 3% or more), smaller than a blocked filter only for rates
// below about 0.07%. -kind classic makes a Bloom filter bit-compatible with
// Guava's BloomFilter, in sift's format or, with -guava, in Guava's own
// stream format for Java's BloomFilter.readFrom (query -guava and info
// -guava read that format back). -kind sbbf makes Parquet's split-block
// Bloom filter (package sbbf), each line hashed as a Parquet
// BYTE_ARRAY value: bit for bit the filter a Parquet writer builds for a
// string column holding those values at that size (sift's format holds its
// Parquet bitset; -seed does not apply).
//
// The filter is sized for -n keys at false-positive rate -fpp (default
// 0.01). Without -n, when every input is a regular file, build counts the
// non-empty lines first (a fast second pass over the files). Reading a pipe
// without -n, -kind blocked makes a scalable filter (a chain of blocked
// filters that grows with the input, its rate still bounded by -fpp, at 2-4x
// the size, and at least its first stage's, sized for 2^18 keys: 470 KiB at
// 1%); the other kinds refuse with a clear error.
// Duplicate lines are harmless. A cuckoo filter that fills up before the
// input ends makes build fail, suggesting a larger -n. A cuckoo build
// stores a key once, skipping lines the filter already reports present;
// with -copies it stores every line's key, repeats as copies, so that keys
// can later be removed in Go without taking others' fingerprints with them
// (a key on more lines than its two buckets hold, 8, fails the build). Before it reads
// anything, build checks that every input can be read, that the filter
// fits in the machine's memory (the size the kind will allocate) and that
// FILE can be written (its directory exists and takes a new file, FILE is
// no directory or device, and not "-": a filter is written to a file),
// and fails naming every input it cannot read: it never writes a filter
// that lacks an input's keys, and never reads all the input to fail at the
// write.
//
// The output is written to a temporary file in the destination's directory
// (".FILE.sift-tmp-PID-RANDOM"), synced, renamed over FILE only when
// complete, and the directory synced: a reader (or a server reloading the
// filter) sees the old file or the new one, never a partial one, also when
// build is killed (SIGKILL) at any moment or the machine loses power. A
// failed or interrupted build (an error, a full disk: "no space left on
// device", SIGINT, SIGTERM, SIGHUP) leaves FILE untouched and no temporary file
// behind. The rename and the signal handler exclude each other: a signal
// that comes after the rename lets build finish (FILE holds the new
// filter) and exit 0, so an exit status of 128+signal always means FILE
// was not replaced. The temporary file of a build that was killed
// outright is removed by the next build or merge of the same FILE, which
// recognises it by its name and by its writer's lock on it (a writer holds
// its temporary file locked with flock(2) until the rename), gone with the
// writer. A FILE that is a symbolic link is replaced by the new file, as
// a deploy that flips links expects (the file it led to is left as it
// was; dedup -state, which keeps its state where the link leads, differs).
// The new file keeps the permission bits of the one it replaces.
//
// -j N (default: every core; at most 4 per core, since more would only add
// copies of the filter) hashes and adds the keys on N goroutines while one
// reads and splits the lines. The file does not depend on N: the
// Bloom kinds give each goroutine a shard of the filter's geometry and OR
// the shards at the end (2.5 times faster than one shared filter with
// atomic ORs, which only a filter too large for one copy per goroutine in
// half the machine's memory uses); a cuckoo filter is filled by one
// goroutine whatever N (shared between goroutines its inserts measured
// slower than alone). A filter whose two copies would take more than half
// the memory available is built by one goroutine, in place: the build
// never holds more copies than fit. Reading lines is one goroutine's work, so
// short keys gain least; on a machine whose cores are busy, -j 1 is
// fastest.
//
// -blocks B with -k K (blocked), -blocks B (sbbf) and -buckets N (cuckoo)
// give the geometry instead of -n and -fpp, so that filters built apart
// from parts of the keys agree and merge; -generation G records a build
// number (a positive integer, or "now" for the Unix time) in the file's
// header (format version 2), which info and package reload report.
//
// While it works, build shows progress on stderr when stderr is a terminal
// (or always with -progress: on a file or pipe, a line every 5 seconds and
// one with the final state of each phase, counting and adding): bytes read,
// keys, keys per second, and the ETA when the input size is known. It ends
// with one summary line on stderr: kind, keys, time and keys per second
// (reading the keys, the counting pass included, whose share it names),
// size, bits per key, geometry and the predicted rate.
//
// # merge
//
// merge reads filters of one kind and geometry built apart (the shards) and
// writes the filter holding all their keys, atomically as build does:
// blocked, sbbf and classic filters are ORed, counting filters' counters
// added (saturating at 15), cuckoo filters' fingerprints inserted into the
// first shard's (failing, and writing nothing, when they do not fit).
// Shards of another kind, geometry or seed are refused, naming the shard.
// Scalable filters cannot be merged. The map-reduce recipe: build each part
// of the keys anywhere with the same explicit geometry,
//
//	sift build -blocks 2000000 -k 7 -seed 0x5eed -o shard-$i.sift part-$i
//
// then merge once: sift merge -o filter.sift shard-*.sift. For the Bloom
// kinds the result is bit for bit the filter one build of all the keys
// makes.
//
// # query
//
// query prints the input lines whose key the filter may contain, in order
// and byte for byte as read (a last line without a newline gets one), like
// grep: every line whose key was added is printed; other lines only as false
// positives. -v prints the others (those surely absent), -c only counts, -q
// prints nothing (not even -c's count) and stops at the first selected
// line. An input that cannot be read, or whose reading fails part way (a
// read error, a line over 64 MiB: the lines before it are handled), is
// reported on stderr and skipped, and the others are read. Exit status, as grep's: 0 when some line was
// selected, 1 when none was, 2 on error (also after a skipped input,
// unless -q selected a line). So query is a pre-filter in a pipeline:
//
//	zcat access.log.gz | sift query -f 7 blocklist.sift | exact-check
//
// The filter file is read into memory of sift's own (one sequential read,
// the checksum verified as it is opened), never mapped: a filter file
// truncated or rewritten while query or info runs (a cp over it, say) ends
// the command with exit status 2 and an error naming the file ("the file
// changed while it was read", "truncated input"), never with a fault. Only
// a file written over in place while it is read can mix two versions; sift
// sees that from its size and modification time, as far as the file
// system's timestamps tell writes apart (a write in the same tick as the
// read's start can pass), and a sift file also from its checksum. A Guava
// stream (-guava) has no checksum, so a mix that passes those checks (a
// writer that left the file half rewritten before the read began, or wrote
// in the same tick) decodes as a filter: publish Guava files by rename, as
// sift build -guava does.
// Lines are looked up in batches of 1024 through the filters' batch
// kernels. query and info also read the other kinds of sift's file format
// into memory: scalable, the classic (Guava-compatible) and counting Bloom
// filters written by package classic, and the window files of dedup -window
// -state. A window is answered as of now by this machine's clock, so the
// keys of a window built with -time-field from past data may all have left
// it: query -as-of latest answers as of the window's own time (the slice
// of its latest add, which info shows), and -as-of with an RFC 3339 time as
// of that time (refused for a window that advances by count, which has no
// time). Output is buffered but flushed whenever the input has no
// more data ready, so query also works on live streams.
//
// # dedup
//
// dedup prints each input line the first time its key is seen, in order and
// byte for byte as read (a last line without a newline gets one): awk
// '!seen[$0]++' (or '!seen[$N]++' with -f N) in bounded memory. The keys
// seen are held in a blocked filter sized for -n distinct keys at -fpp
// (default 0.01), about 1.3 bytes a key at 1%, whatever the lines' length
// (beside a read buffer of a few times the longest line: about 4.5 times
// it for a 63 MiB line; lines are refused beyond 64 MiB).
// Keys are selected as query selects them, except that the empty key is a
// key like any other, as in awk: the first line with it is printed. A
// repeated key is never printed twice; a false positive drops a new line,
// with the filter's rate at the time, which grows from 0 to -fpp as the
// filter fills: over -n distinct keys at 1%, about 0.16% of them are
// dropped ('sift dedup -n N -fpp P -h' prints the expected number, computed
// from the filter's predicted rate at each fill). Past its size the rate
// keeps growing: once the filter holds more keys than -n (or the -state
// file's size) and its predicted rate passes -fpp, dedup warns once on
// stderr, as build does (not with -window). Lines go through the
// filter's batch add-if-new (blocked.Filter.AddNewHashes) 1024 at a time,
// flushed whenever the input would block, as query does.
//
// -state FILE keeps the filter between runs, for incremental de-duplication
// of each day's logs against all earlier days: a FILE that exists is loaded
// (it must hold a blocked filter, of the size -n and -fpp ask for when they
// are given; it fixes the size when they are not), and the filter is written
// back atomically at the end, as build writes, only when every line read
// was written (after a skipped input too, wholly or part way, since the
// lines read were printed). The file written back keeps the hash seed, the
// generation and the permission bits of the one read; a FILE that is a
// symbolic link stays one, and the file it leads to is rewritten. A FILE
// with bytes after its filter is refused, as info and query refuse it.
// Exit status as query's: 0 when a line was printed, 1 when none was, 2 on
// error.
//
//	zcat access-2026-11-25.log.gz | sift dedup -f 7 -state seen-urls.sift > new-urls.txt
//
// -window D de-duplicates over a sliding window instead: a line is printed
// when its key was not seen in the last D, and a key is remembered at least
// D and at most D + D/(G-1) after it was last seen (a dropped repeat is a
// sighting too). The keys live in a blocked.Window of -generations G (default
// 4) generations taking turns over slices of D/(G-1) (D is rounded up to a
// multiple of G-1 nanoseconds); -n is then the distinct keys per window and
// -fpp the rate over a full window, so a steady stream of -n new keys a
// window loses about 0.77% of them at 0.01 and G = 4 ('sift dedup -n N -fpp
// P -window D -h' prints the figure, the memory and the bounds). Each
// generation holds one slice's keys, so a burst of more than -n/(G-1) keys in
// one slice (a whole file read by arrival time) raises the rate: give -n of
// (G-1) times the burst's distinct keys. The time is
// the lines' arrival, read once per batch (a batch's lines were read
// together, without waiting for input), or with -time-field N the line's
// field N (split as -f splits), written as -time-format says: rfc3339 (with
// "t" and "z" in either case, and a leap second, 23:59:60, read as the last
// instant of 23:59:59, which keeps the lines in order and forgets no key
// early), unix, unixms, unixus, unixns (integers or decimals) or auto (the
// default: RFC 3339 when the fifth byte is "-", else a Unix time whose size
// tells its unit). The window's clock never goes back: a line with a time before the
// latest seen is judged, and its key remembered, as of the latest time. A
// line whose time is missing or not a time is printed, its key not added,
// and counted: sift dedup then names the first such line on stderr and exits
// with status 2. -state FILE keeps the window (file kind window) between
// runs; it must have been made with the same -window and -generations.
//
//	sift dedup -n 1e6 -window 24h -f 2 -time-field 1 -state seen-24h.sift events.log
//
// # info
//
// info describes filter files: kind, geometry, hash and seed, size, fill,
// keys (for cuckoo the fingerprints it stores, for scalable the keys its
// adds counted as new: both leave out keys that were false positives when
// added, so they can be a little below the distinct keys given to build;
// estimated from the fill for blocked),
// the false-positive rate predicted at that fill, and whether the header and
// payload CRC-32C checksums verify ("checksum: ok" or "checksum: BAD ..."; a
// bad file also makes info exit 2).
//
// # bench
//
// bench is the first command to run on a new machine. It builds each filter
// from -n deterministic keys (default 1000000; the same keys for every run
// with the same -seed) and prints a table on stdout: size and bits per key,
// nanoseconds per key to add and to look up present and absent keys one at a
// time and in batches (the best of 3 runs, in the thread's CPU time where
// the system has that clock, so a busy machine's other processes distort
// less), and the predicted against the measured false-positive rate over
// enough absent keys for about 1000 false positives (at least a million). It prints the CPU, its
// features and the kernel set in use with the reason for the choice; set
// SIFT_KERNEL=generic to compare with the portable Go kernels. It takes a
// few seconds with the defaults on an idle machine, and reports any false
// negative as an error.
//
// bench -kernels compares the kernel sets instead: every set the CPU has
// (avx512, avx2, generic; neon on arm64), for every operation that has its
// own kernel choice, side by side in 5 interleaved rounds, medians of the
// thread CPU time per key, each timed run right after an untimed one of
// the same set, at 1e6 and 1e7 keys (or -n). It marks the set
// sift's table chose for this CPU and says whether it measured fastest
// (within 3%): the evidence for a table entry on a CPU family that sift
// version reports as having none. About a minute.
//
// # Errors
//
// Every error is one line on stderr naming the file and what is wrong (for
// example "sift query: list.sift: checksum mismatch: payload CRC-32C is ...,
// stored ... (the file is damaged: rebuild or copy it again)"), with exit
// status 2: unreadable, truncated, damaged or foreign files, a filter of
// another kind than -kind asks for, a kind this command cannot read, and bad
// flags. A filter FILE must be a regular file: a FIFO, a device or a
// directory is refused at once (a FIFO is never waited on). Flags may follow the arguments; "--" ends them. SIGINT, SIGTERM
// and SIGHUP remove build's temporary file (and a new dedup -state file,
// created empty when the run starts) before exiting with 128+signal
// (build, merge and dedup -state: once the output file is renamed into
// place, a signal lets the command finish instead); a SIGHUP or SIGINT
// that sift was started with ignored (nohup) stays ignored. A write to
// standard output whose reader is gone (sift dedup | head -1: SIGPIPE)
// does the same, quietly, with exit status 141, as the shell's pipelines
// expect. So a dedup -state run ended by a signal, or by its reader,
// saves none of its keys (the lines it did not print were never
// delivered), and the next run prints its lines again: end the input
// instead (the end of a pipe: timeout 8h tail -f log | sift dedup -state
// FILE).
package main
