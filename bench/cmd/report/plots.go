package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/sift-go/sift/bench"
)

// plotFile is one written plot: File is the path stem under the output
// directory (File.svg and File.png exist).
type plotFile struct {
	Title, File string
}

func (r *report) plots(dir, slug string) ([]plotFile, error) {
	var out []plotFile
	for _, fpp := range r.fpps {
		p, err := r.lookupPlot(fpp)
		if err != nil {
			return nil, err
		}
		if p == nil {
			continue
		}
		f := plotFile{Title: fmt.Sprintf("lookup ns/key vs n, fpp %s", pct(fpp)), File: fmt.Sprintf("%s-lookup-fpp%s", slug, fpp)}
		if err := save(p, filepath.Join(dir, f.File)); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	p, err := r.fprPlot()
	if err != nil {
		return nil, err
	}
	f := plotFile{Title: "false-positive rate vs bits per key", File: slug + "-fpr"}
	if err := save(p, filepath.Join(dir, f.File)); err != nil {
		return nil, err
	}
	return append(out, f), nil
}

// palette has a distinct colour for every line (plotutil's has seven).
var palette = []color.Color{
	rgb(0xd6, 0x27, 0x28), rgb(0xff, 0x7f, 0x0e), rgb(0xe3, 0x77, 0xc2), rgb(0x8c, 0x56, 0x4b),
	rgb(0x94, 0x67, 0xbd), rgb(0xbc, 0xbd, 0x22), rgb(0x1f, 0x77, 0xb4), rgb(0x2c, 0xa0, 0x2c),
	rgb(0x17, 0xbe, 0xcf), rgb(0x7f, 0x7f, 0x7f), rgb(0xaa, 0x40, 0x00), rgb(0x00, 0x40, 0x80),
	rgb(0x60, 0xa0, 0x00), rgb(0xa0, 0x00, 0x60), rgb(0x00, 0x80, 0x80), rgb(0x50, 0x50, 0xc0),
}

func rgb(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }

func colorAt(i int) color.Color { return palette[i%len(palette)] }

// figure is a plot with its legend drawn to the right of the axes, where it
// hides no data.
type figure struct {
	p   *plot.Plot
	leg plot.Legend
}

func newFigure() *figure {
	f := &figure{p: plot.New(), leg: plot.NewLegend()}
	f.leg.Top, f.leg.Left = true, true
	f.p.Add(plotter.NewGrid())
	return f
}

func save(f *figure, stem string) error {
	const w, h, legendWidth = 11 * vg.Inch, 6 * vg.Inch, 3 * vg.Inch
	for _, ext := range []string{".svg", ".png"} {
		var c vg.CanvasWriterTo
		if ext == ".svg" {
			c = vgsvg.New(w, h)
		} else {
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
		}
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		f.p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
		f.leg.Draw(draw.Crop(dc, w-legendWidth+vg.Points(8), 0, 0, -vg.Points(20)))
		if err := writeFileAtomic(stem+ext, func(w io.Writer) error {
			_, err := c.WriteTo(w)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// lookupPlot draws present-key lookup cost against n, one line per filter
// and mode, with the memory probes as reference lines.
func (r *report) lookupPlot(fpp string) (*figure, error) {
	if len(r.sizes) == 0 {
		return nil, nil
	}
	fig := newFigure()
	p := fig.p
	p.Title.Text = fmt.Sprintf("Lookup of present keys, fpp %s — %s", pct(fpp), r.m.CPU)
	p.X.Label.Text = "keys in the filter (n)"
	p.Y.Label.Text = "ns per lookup (wall clock)"
	if r.unit == "cpu-ns/key" {
		p.Y.Label.Text = "ns per lookup (CPU time of the benchmark thread)"
	}
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	i := 0
	addLine := func(label string, pts plotter.XYs, c color.Color, dashed bool, width vg.Length) error {
		if len(pts) == 0 {
			return nil
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, s.Color = c, c
		l.Width = width
		if dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		s.Shape = plotutil.Shape(i)
		p.Add(l, s)
		fig.leg.Add(label, l, s)
		return nil
	}
	points := func(name func(n string) string) plotter.XYs {
		var pts plotter.XYs
		for _, n := range r.sizes {
			if v := r.metric(name(n), r.unit); !math.IsNaN(v) && v > 0 {
				pts = append(pts, plotter.XY{X: parseCount(n), Y: v})
			}
		}
		return pts
	}
	for _, s := range r.specsIn(fpp) {
		for _, mode := range modes(r.hasBatch(fpp, s.Name)) {
			label := modeLabel(s.Name, mode)
			width := vg.Points(1.2)
			if s.Sift {
				width = vg.Points(2.2)
			}
			pts := points(func(n string) string { return containsName(n, fpp, s.Name, "present", mode) })
			if err := addLine(label, pts, colorAt(i), mode == "batch", width); err != nil {
				return nil, err
			}
			i++
		}
	}
	limitLabel := "memory limit (prefetch probe, best distance)"
	if r.legacyProbe() {
		limitLabel = fmt.Sprintf("prefetch probe (%d ahead)", bench.LegacyPrefetchDistance)
	}
	for _, probe := range []struct {
		name  func(n string) string
		label string
		gray  uint8
	}{
		{func(n string) string { return r.limitAt(n, fpp).name }, limitLabel, 0},
		{func(n string) string { return memoryName(n, fpp, "chain") }, "memory latency (chain)", 120},
	} {
		pts := points(probe.name)
		if err := addLine(probe.label, pts, color.Gray{Y: probe.gray}, probe.gray != 0, vg.Points(3)); err != nil {
			return nil, err
		}
		i++
	}
	return fig, nil
}

// fprPlot places every filter at (bits/key, measured FPR) at the largest n
// of each fpp group, over the theoretical curves of each design.
func (r *report) fprPlot() (*figure, error) {
	fig := newFigure()
	p := fig.p
	p.Title.Text = fmt.Sprintf("False-positive rate vs space (largest n measured) — %s", r.m.CPU)
	p.X.Label.Text = "bits per key"
	p.Y.Label.Text = "false-positive rate"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = 4, 24
	var ticks []plot.Tick
	for x := 4; x <= 24; x++ {
		t := plot.Tick{Value: float64(x)}
		if x%2 == 0 {
			t.Label = fmt.Sprint(x)
		}
		ticks = append(ticks, t)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = 1e-5, 0.2
	curves := []struct {
		label string
		f     func(b float64) float64
	}{
		{"classic Bloom (best k)", bench.ClassicBestFPR},
		{"512-bit blocked Bloom (best k)", bench.BlockedBestFPR},
		{"split-block Bloom (parquet)", bench.SplitBlockFPR},
		{"cuckoo, 4-slot buckets, 95% load", func(b float64) float64 {
			f := b * 0.95
			return 1 - math.Pow(1-math.Pow(2, -f), 8*0.95)
		}},
		{"binary fuse (1.125 f bits/key)", func(b float64) float64 { return math.Pow(2, -b/1.125) }},
	}
	for i, c := range curves {
		fn := plotter.NewFunction(c.f)
		fn.Samples = 200
		fn.Color = color.Gray{Y: uint8(40 + 35*i)}
		fn.Dashes = plotutil.Dashes(i + 1)
		fn.Width = vg.Points(1.2)
		p.Add(fn)
		fig.leg.Add(c.label, fn)
	}
	if len(r.sizes) == 0 {
		return fig, nil
	}
	big := r.sizes[len(r.sizes)-1]
	i := 0
	for _, s := range r.specs {
		if s.Sift && s.Input == bench.InputBytes && s.Name != "sift-classic" {
			continue // sift-blocked-bytes, sift-cuckoo*-bytes: the same tables as their hash-input twins
		}
		var pts plotter.XYs
		for _, fpp := range r.fpps {
			name := containsName(big, fpp, s.Name, "absent", "loop")
			bpk, fpr := r.metric(name, "bits/key"), r.metric(name, "fpr")
			if !math.IsNaN(bpk) && fpr > 0 {
				pts = append(pts, plotter.XY{X: bpk, Y: fpr})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = colorAt(i)
		sc.Shape = plotutil.Shape(i)
		sc.Radius = vg.Points(4)
		p.Add(sc)
		fig.leg.Add(s.Name, sc)
		i++
	}
	return fig, nil
}
