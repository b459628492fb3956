package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/deltaq/deltaq/internal/atomicfile"
)

// Style says how a series is drawn.
type Style int

const (
	Lines Style = iota
	Points
	LinesPoints
)

// Series is one named line or cloud of points.
type Series struct {
	Name  string
	X, Y  []float64
	Style Style
}

// Add appends the point (x, y) to s.
func (s *Series) Add(x, y float64) {
	s.X = append(s.X, x)
	s.Y = append(s.Y, y)
}

// Plot is a figure with one or more series.
type Plot struct {
	Title      string
	X, Y       string // axis labels
	LogX, LogY bool
	Series     []Series
	// Diagonal draws the y = x line (forecastability plots, thesis fig. 4.3).
	Diagonal bool
	// Width and Height in centimetres; zero means 16 × 10.
	Width, Height float64
}

// Write renders the plot as path+".svg" and path+".png".
func (p Plot) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	pl, err := p.build()
	if err != nil {
		return err
	}
	w, h := p.Width, p.Height
	if w == 0 {
		w = 16
	}
	if h == 0 {
		h = 10
	}
	for _, ext := range []string{"svg", "png"} {
		wt, err := pl.WriterTo(vg.Length(w)*vg.Centimeter, vg.Length(h)*vg.Centimeter, ext)
		if err != nil {
			return fmt.Errorf("report: render %s: %w", ext, err)
		}
		if err := atomicfile.Write(path+"."+ext, func(f io.Writer) error {
			_, err := wt.WriteTo(f)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

func (p Plot) build() (*plot.Plot, error) {
	if len(p.Series) == 0 {
		return nil, errors.New("report: plot has no series")
	}
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.X.Label.Text = p.X
	pl.Y.Label.Text = p.Y
	pl.Legend.Top = true
	if p.LogX {
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, s := range p.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("report: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		xys := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			x, y := s.X[j], s.Y[j]
			if (p.LogX && x <= 0) || (p.LogY && y <= 0) || math.IsNaN(x) || math.IsNaN(y) {
				continue // not drawable on this scale
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			xlo, xhi, ylo, yhi = math.Min(xlo, x), math.Max(xhi, x), math.Min(ylo, y), math.Max(yhi, y)
		}
		if len(xys) == 0 {
			continue
		}
		c := plotutil.Color(i)
		switch s.Style {
		case Points:
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("report: series %q: %w", s.Name, err)
			}
			sc.GlyphStyle.Color = c
			sc.GlyphStyle.Radius = vg.Points(1.5)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			pl.Add(sc)
			pl.Legend.Add(s.Name, sc)
		default:
			l, pts, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, fmt.Errorf("report: series %q: %w", s.Name, err)
			}
			l.Color = c
			l.Dashes = plotutil.Dashes(i)
			pl.Add(l)
			if s.Style == LinesPoints {
				pts.Color = c
				pts.Shape = plotutil.Shape(i)
				pl.Add(pts)
				pl.Legend.Add(s.Name, l, pts)
			} else {
				pl.Legend.Add(s.Name, l)
			}
		}
	}
	if lo, hi := math.Min(xlo, ylo), math.Max(xhi, yhi); p.Diagonal && lo < hi {
		d, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
		if err != nil {
			return nil, err
		}
		d.Color = color.Gray{Y: 128}
		d.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		pl.Add(d)
	}
	// A logarithmic axis over a single value has no decade to tick, and
	// one over none (every value 0, not drawable) runs from 0; gonum
	// panics on either. Such an axis spans a factor of ten around the
	// value, or from 1 to 10.
	logAxis(&pl.X, p.LogX, xlo, xhi)
	logAxis(&pl.Y, p.LogY, ylo, yhi)
	pl.Add(plotter.NewGrid())
	return pl, nil
}

// logAxis sets the range of a, logarithmic when isLog, over the values
// [lo, hi] drawn on it (lo > hi for none) where gonum could not draw it.
func logAxis(a *plot.Axis, isLog bool, lo, hi float64) {
	switch {
	case !isLog:
	case lo > hi:
		a.Min, a.Max = 1, 10
	case lo == hi:
		a.Min, a.Max = lo/math.Sqrt(10), hi*math.Sqrt(10)
	}
}
