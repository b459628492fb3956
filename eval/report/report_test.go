package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCellFormatsNumbersOnce(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{0.97312345, "0.9731"},
		{100.0, "100"},
		{12.5, "12.5"},
		{0.000012, "1.200e-05"},
		{3, "3"},
		{math.NaN(), "n/a"},
		{math.Inf(1), "∞"},
		{"deltaq", "deltaq"},
	} {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTableRendersMarkdownAndCSV(t *testing.T) {
	tb := NewTable("Quality", "policy", "budget", "mean Q")
	tb.Add("deltaq", 100, 0.97312)
	tb.Add("a|b", 50)
	tb.Note("Each row is the mean over %d weeks.", 47)
	var md bytes.Buffer
	if err := tb.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	want := "### Quality\n\n| policy | budget | mean Q |\n|---|---|---|\n| deltaq | 100 | 0.9731 |\n| a\\|b | 50 |  |\n\nEach row is the mean over 47 weeks.\n\n"
	if md.String() != want {
		t.Fatalf("markdown:\n%q\nwant\n%q", md.String(), want)
	}
	var csv bytes.Buffer
	if err := tb.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	if got := csv.String(); got != "policy,budget,mean Q\ndeltaq,100,0.9731\na|b,50,\n" {
		t.Fatalf("csv = %q", got)
	}
}

func TestWriteMarkdownAndPlotFiles(t *testing.T) {
	dir := t.TempDir()
	tb := NewTable("T", "x")
	tb.Add(1)
	if err := WriteMarkdown(filepath.Join(dir, "report.md"), "# Run\n\nseed 1", tb); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.HasPrefix(string(md), "# Run\n\nseed 1\n\n### T") {
		t.Fatalf("report.md = %q", md)
	}
	p := Plot{Title: "fig", X: "B", Y: "Q", LogX: true, Diagonal: true, Series: []Series{
		{Name: "a", X: []float64{1, 10, 100}, Y: []float64{0.5, 0.7, 0.9}, Style: LinesPoints},
		{Name: "b", X: []float64{0, 10}, Y: []float64{0.1, 0.2}, Style: Points},
	}}
	if err := p.Write(filepath.Join(dir, "fig")); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "fig.svg"))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Fatalf("fig.svg: %v, %.40q", err, svg)
	}
	png, err := os.ReadFile(filepath.Join(dir, "fig.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("fig.png: %v", err)
	}
}

func TestPlotRejectsMismatchedSeries(t *testing.T) {
	err := Plot{Series: []Series{{Name: "bad", X: []float64{1, 2}, Y: []float64{1}}}}.Write(filepath.Join(t.TempDir(), "p"))
	if err == nil || !strings.Contains(err.Error(), `series "bad" has 2 x and 1 y values`) {
		t.Fatalf("err = %v", err)
	}
	if err := (Plot{}).Write(filepath.Join(t.TempDir(), "p")); err == nil {
		t.Fatal("a plot without series was written")
	}
}

func TestLogAxisOverASingleValueIsDrawn(t *testing.T) {
	p := Plot{LogX: true, LogY: true, Series: []Series{{Name: "one", X: []float64{1, 1}, Y: []float64{3, 4}, Style: Points}}}
	if err := p.Write(filepath.Join(t.TempDir(), "p")); err != nil {
		t.Fatal(err)
	}
}

// TestLogAxisWithNothingToDrawIsDrawnEmpty: a log axis whose every value
// is 0 (a run that found nothing new) is drawn empty, where gonum
// panicked on an axis from 0 to 0.
func TestLogAxisWithNothingToDrawIsDrawnEmpty(t *testing.T) {
	for _, p := range []Plot{
		{LogY: true, Series: []Series{{Name: "none new", X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}}},
		{LogX: true, LogY: true, Series: []Series{{Name: "none", X: []float64{0}, Y: []float64{0}, Style: Points}}},
	} {
		path := filepath.Join(t.TempDir(), "p")
		if err := p.Write(path); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + ".svg"); err != nil || fi.Size() == 0 {
			t.Errorf("%+v: svg %v", p, err)
		}
	}
}
