package index

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestTextBuildMetrics: the first search of an index reads its segments,
// the first after a batch carries them over and reads the batch's, and
// the collector reports both builds, their time and their segments.
func TestTextBuildMetrics(t *testing.T) {
	ix := smallIndexWith(t, Options{MergeOnlyOnCompact: true}) // a merge would leave no segment to carry
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(ix.Collector()); err != nil {
		t.Fatal(err)
	}
	searchURLs(t, ix, "budget")
	searchURLs(t, ix, "budget") // the same snapshot: no build
	putPages(t, ix.db, t0.Add(1), page{URL: "https://z.test/new", Title: "New", Text: "A new budget page."})
	catchUp(t, ix)
	searchURLs(t, ix, "budget")
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	segs := map[string]float64{}
	var builds uint64
	var seconds float64
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "deltaq_index_text_build_seconds":
				builds, seconds = m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
			case "deltaq_index_text_build_segments_total":
				segs[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	if builds != 2 || seconds <= 0 {
		t.Errorf("%d builds taking %v s, want 2 taking some time", builds, seconds)
	}
	if segs["read"] < 2 || segs["carried"]+segs["derived"] < 1 {
		t.Errorf("segments %v: want at least 2 read (the index's, the batch's) and 1 carried or derived", segs)
	}
}

// counterValue is the value of the counter name in reg, 0 if absent.
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}
