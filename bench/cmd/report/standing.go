package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/sift-go/sift/bench"
)

// op is one measured operation in a comparison, in one mode (loop: the
// single-key call; batch: the batch call, compared only with peers that
// have one).
type op struct {
	label string
	mode  string
	value func(r *report, n, fpp, filter, mode string) float64
}

func lookupPresent(r *report, n, fpp, f, mode string) float64 {
	return r.metric(containsName(n, fpp, f, "present", mode), r.unit)
}

func lookupAbsent(r *report, n, fpp, f, mode string) float64 {
	return r.metric(containsName(n, fpp, f, "absent", mode), r.unit)
}

func insert(r *report, n, fpp, f, mode string) float64 {
	return r.metric(insertName(n, fpp, f, mode), r.unit)
}

var ops = []op{
	{"lookup, present keys", "loop", lookupPresent},
	{"lookup, absent keys", "loop", lookupAbsent},
	{"insert", "loop", insert},
	{"batch lookup, present keys", "batch", lookupPresent},
	{"batch lookup, absent keys", "batch", lookupAbsent},
	{"batch insert", "batch", insert},
}

// comparison pits one sift filter against a set of peers.
type comparison struct {
	title string
	sift  func(fpp string, specs []bench.Spec) string
	peer  func(s bench.Spec) bool
}

func firstSift(kind bench.Kind, input bench.Input) func(string, []bench.Spec) string {
	return func(_ string, specs []bench.Spec) string {
		for _, s := range specs {
			if s.Sift && s.Kind == kind && s.Input == input {
				return s.Name
			}
		}
		return ""
	}
}

var comparisons = []comparison{
	{"sift-blocked vs the hash-input Bloom peers", firstSift(bench.KindBloom, bench.InputHash),
		func(s bench.Spec) bool { return s.Kind == bench.KindBloom && s.Input == bench.InputHash }},
	{"sift-blocked-bytes vs the byte-input Bloom peers", firstSift(bench.KindBloom, bench.InputBytes),
		func(s bench.Spec) bool { return s.Kind == bench.KindBloom && s.Input == bench.InputBytes }},
	{"sift's cuckoo filter vs the cuckoo peers", firstSift(bench.KindCuckoo, bench.InputHash),
		func(s bench.Spec) bool { return s.Kind == bench.KindCuckoo }},
	{"sift-blocked vs every peer (static xor filters included)", firstSift(bench.KindBloom, bench.InputHash),
		func(s bench.Spec) bool { return true }},
}

// best returns the fastest peer (name, ns/key) among specs that pass keep.
func (r *report) best(specs []bench.Spec, keep func(bench.Spec) bool, o op, n, fpp string) (string, float64) {
	name, v := "", math.Inf(1)
	for _, s := range specs {
		if s.Sift || !keep(s) {
			continue
		}
		if x := o.value(r, n, fpp, s.Name, o.mode); x < v {
			name, v = s.Name, x
		}
	}
	return name, v
}

func (r *report) writeStanding(b *strings.Builder) {
	fmt.Fprintf(b, "## Where sift stands\n\nEach cell: the fastest peer's %s divided by sift's, and that peer: single-key calls against single-key calls, batch calls against the peers that have a batch call (rows appear only where one does). Above 1×: sift is faster.\n\n", r.unit)
	var behind []string
	for _, c := range comparisons {
		var t strings.Builder
		b, outer := &t, b
		fmt.Fprintf(b, "### %s\n\n| fpp | operation |", c.title)
		for _, n := range r.sizes {
			fmt.Fprintf(b, " n=%s |", n)
		}
		b.WriteString("\n|---|---|")
		for range r.sizes {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		rows := 0
		for _, fpp := range r.fpps {
			specs := r.specsIn(fpp)
			sift := c.sift(fpp, specs)
			if sift == "" {
				continue
			}
			for _, o := range ops {
				var cells []string
				any := false
				for _, n := range r.sizes {
					sv := o.value(r, n, fpp, sift, o.mode)
					peer, pv := r.best(specs, c.peer, o, n, fpp)
					if peer == "" || math.IsNaN(sv) || math.IsInf(pv, 1) {
						cells = append(cells, "–")
						continue
					}
					any = true
					cells = append(cells, fmt.Sprintf("%s %s", fmtRatio(pv/sv), peer))
					if pv < sv {
						behind = append(behind, fmt.Sprintf("fpp %s, n=%s, %s: **%s** %s vs %s %s %s (sift %.2f× slower)",
							pct(fpp), n, o.label, peer, fmtNs(pv), sift, fmtNs(sv), r.unit, sv/pv))
					}
				}
				if any {
					fmt.Fprintf(b, "| %s | %s | %s |\n", pct(fpp), o.label, strings.Join(cells, " | "))
					rows++
				}
			}
		}
		b.WriteString("\n")
		if rows > 0 { // a comparison with no data (its filters did not run) is left out
			outer.WriteString(t.String())
		}
		b = outer
	}
	fmt.Fprintf(b, "### Against the memory limit\n\nsift-blocked's batch lookup (`ContainsHashes`) and single-key loop over the prefetch probe at the same n (1.00× = at the limit).\n\n| fpp | keys |")
	for _, n := range r.sizes {
		fmt.Fprintf(b, " n=%s batch | loop |", n)
	}
	b.WriteString("\n|---|---|")
	for range r.sizes {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for _, fpp := range r.fpps {
		for _, keys := range []string{"present", "absent"} {
			fmt.Fprintf(b, "| %s | %s |", pct(fpp), keys)
			for _, n := range r.sizes {
				mem := r.metric(memoryName(n, fpp, "prefetch16"), r.unit)
				fmt.Fprintf(b, " %s | %s |",
					fmtRatio(r.metric(containsName(n, fpp, "sift-blocked", keys, "batch"), r.unit)/mem),
					fmtRatio(r.metric(containsName(n, fpp, "sift-blocked", keys, "loop"), r.unit)/mem))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n### Every case where sift is not first\n\n")
	if len(behind) == 0 {
		b.WriteString("None: in every comparison above sift is the fastest.\n\n")
	}
	for _, s := range dedupe(behind) {
		fmt.Fprintf(b, "- %s\n", s)
	}
	b.WriteString("\n")
}

// target is one line of DESIGN.md section 8.
type target struct {
	what, measured, verdict string
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func (r *report) writeTargets(b *strings.Builder) {
	var ts []target
	small := "1e5" // the in-cache target is at n = 1e5 only
	big := r.sizes[len(r.sizes)-1]
	const onePct = "0.01"
	// 1. blocked ContainsHash in cache vs parquet-go.
	for _, keys := range []string{"present", "absent"} {
		s := r.metric(containsName(small, onePct, "sift-blocked", keys, "loop"), r.unit)
		p := r.metric(containsName(small, onePct, "parquet-sbbf", keys, "loop"), r.unit)
		if !math.IsNaN(s) && !math.IsNaN(p) {
			ts = append(ts, target{fmt.Sprintf("blocked ContainsHash at n=%s (%s keys) faster than parquet-go split-block", small, keys),
				fmt.Sprintf("%s vs %s ns/key (%s)", fmtNs(s), fmtNs(p), fmtRatio(p/s)), verdict(s < p)})
		}
	}
	for _, keys := range []string{"present", "absent"} {
		s := r.metric(containsName(small, onePct, "sift-blocked", keys, "loop"), r.unit)
		p := r.metric(containsName(small, onePct, "blobloom", keys, "loop"), r.unit)
		if !math.IsNaN(s) && !math.IsNaN(p) {
			ts = append(ts, target{fmt.Sprintf("blocked ContainsHash at n=%s (%s keys) >= 2x faster than blobloom", small, keys),
				fmt.Sprintf("%s vs %s ns/key (%s)", fmtNs(s), fmtNs(p), fmtRatio(p/s)), verdict(p/s >= 2)})
		}
	}
	// 2. batch in DRAM.
	for _, keys := range []string{"present", "absent"} {
		s := r.metric(containsName(big, onePct, "sift-blocked", keys, "batch"), r.unit)
		mem := r.metric(memoryName(big, onePct, "prefetch16"), r.unit)
		peer, pv := r.best(r.specsIn(onePct), func(bench.Spec) bool { return true }, ops[map[string]int{"present": 0, "absent": 1}[keys]], big, onePct)
		if math.IsNaN(s) || peer == "" {
			continue
		}
		note := ""
		if big != "1e8" {
			note = fmt.Sprintf(" (target is at n=1e8; largest run here n=%s)", big)
		}
		ts = append(ts, target{fmt.Sprintf("blocked ContainsHashes at n=%s (%s) >= 2x the best peer's loop%s", big, keys, note),
			fmt.Sprintf("%s ns/key vs %s %s (%s)", fmtNs(s), peer, fmtNs(pv), fmtRatio(pv/s)), verdict(pv/s >= 2)})
		ts = append(ts, target{fmt.Sprintf("blocked ContainsHashes at n=%s (%s) within 1.25x of the prefetch probe", big, keys),
			fmt.Sprintf("%s vs %s ns/key (%s)", fmtNs(s), fmtNs(mem), fmtRatio(s/mem)), verdict(s/mem <= 1.25)})
	}
	// 3. cuckoo vs seiflotfy.
	for _, n := range []string{"1e6", "1e7"} {
		for i, o := range ops[:3] {
			s := o.value(r, n, onePct, "sift-cuckoo8", "loop")
			p := o.value(r, n, onePct, "seiflotfy-cuckoo", "loop")
			if math.IsNaN(s) || math.IsNaN(p) {
				continue
			}
			need := 3.0
			if i == 2 {
				need = 2
			}
			ts = append(ts, target{fmt.Sprintf("cuckoo %s at n=%s >= %gx faster than seiflotfy/cuckoofilter", o.label, n, need),
				fmt.Sprintf("%s vs %s ns/key (%s)", fmtNs(s), fmtNs(p), fmtRatio(p/s)), verdict(p/s >= need)})
		}
	}
	// 4. space.
	for _, fpp := range r.fpps {
		for _, s := range r.specsIn(fpp) {
			if !s.Sift || (s.Kind != bench.KindCuckoo && s.Name != "sift-blocked") {
				continue
			}
			worst, at := 0.0, ""
			want := bench.BlockedMinBits(parseCount(fpp))
			if s.Kind == bench.KindCuckoo {
				want = map[string]float64{"sift-cuckoo8": 8 / 0.95, "sift-cuckoo16": 16 / 0.95}[s.Name]
			}
			for _, n := range r.sizes {
				bpk := r.metric(containsName(n, fpp, s.Name, "absent", "loop"), "bits/key")
				if dev := bpk/want - 1; !math.IsNaN(dev) && (at == "" || math.Abs(dev) > math.Abs(worst)) {
					worst, at = dev, n
				}
			}
			if at == "" {
				continue
			}
			limit := 0.05
			if s.Kind == bench.KindCuckoo {
				limit = 0.03
			}
			ts = append(ts, target{fmt.Sprintf("%s bits/key within %.0f%% of %.2f (fpp %s)", s.Name, limit*100, want, pct(fpp)),
				fmt.Sprintf("worst %+.1f%% at n=%s", worst*100, at), verdict(worst <= limit)})
		}
	}
	// 5. accuracy: measured FPR <= fpp for the tunable sift filters, up to
	// three standard deviations of sampling noise over the absent keys.
	for _, fpp := range r.fpps {
		for _, name := range []string{"sift-blocked", "sift-classic"} {
			worst, at, ok := 0.0, "", true
			p := parseCount(fpp)
			for _, n := range r.sizes {
				v := r.metric(containsName(n, fpp, name, "absent", "loop"), "fpr")
				if math.IsNaN(v) {
					continue
				}
				samples := math.Min(math.Max(parseCount(n), 1e6), 1e7)
				if v > p+3*math.Sqrt(p*(1-p)/samples) {
					ok = false
				}
				if at == "" || v > worst {
					worst, at = v, n
				}
			}
			if at != "" {
				what := fmt.Sprintf("%s measured FPR <= %s (± 3σ sampling noise)", name, pct(fpp))
				if name == "sift-classic" {
					what += "; Guava's sizing aims at fpp exactly"
				}
				ts = append(ts, target{what, fmt.Sprintf("worst %s at n=%s", fmtFPR(worst), at), verdict(ok)})
			}
		}
	}
	// 6. allocations.
	allocs := 0.0
	for name, s := range r.byName {
		k := s.Key
		if (k.Func == "Contains" || k.Func == "Insert") && strings.HasPrefix(k.Params["filter"], "sift-") {
			allocs += s.Metrics["allocs/op"]
			_ = name
		}
	}
	ts = append(ts, target{"zero allocations per Add/Contains (sift)", fmt.Sprintf("%g allocs in all sift cases", allocs), verdict(allocs == 0)})

	fmt.Fprintf(b, "## DESIGN.md targets\n\n| target | measured | |\n|---|---|---|\n")
	for _, t := range ts {
		fmt.Fprintf(b, "| %s | %s | %s |\n", t.what, t.measured, t.verdict)
	}
	b.WriteString("\n")
}
