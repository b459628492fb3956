package index

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// buildSeconds are the buckets of the build-time histogram: from a carried
// build of a small index to a read of a large one.
var buildSeconds = [...]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// buildStats sums the builds of the in-memory text field: how long they
// took, by bucket, and how their segments were had.
type buildStats struct {
	n       uint64
	seconds float64
	buckets [len(buildSeconds)]uint64 // builds of at most buildSeconds[i]
	segs    buildCounts
}

func (s *buildStats) add(took time.Duration, c buildCounts) {
	s.n++
	s.seconds += took.Seconds()
	for i, b := range buildSeconds {
		if took.Seconds() <= b {
			s.buckets[i]++
		}
	}
	s.segs = s.segs.plus(c)
}

var (
	buildDesc = prometheus.NewDesc("deltaq_index_text_build_seconds",
		"Builds of the in-memory text field a search waits for on each new index snapshot.", nil, nil)
	segmentsDesc = prometheus.NewDesc("deltaq_index_text_build_segments_total",
		"Segments of the snapshots built, by how they were had: read from the index, carried over from the last build, or derived from it (a merge).",
		[]string{"how"}, nil)
)

// Collector exposes the builds of the in-memory text field to
// Prometheus; register it with the registry the HTTP server serves on
// /metrics.
func (ix *Index) Collector() prometheus.Collector { return textCollector{ix} }

type textCollector struct{ ix *Index }

func (textCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- buildDesc
	ch <- segmentsDesc
}

func (c textCollector) Collect(ch chan<- prometheus.Metric) {
	st := &c.ix.texts.stats
	st.Lock()
	s := st.builds
	st.Unlock()
	buckets := make(map[float64]uint64, len(buildSeconds))
	for i, b := range buildSeconds {
		buckets[b] = s.buckets[i]
	}
	ch <- prometheus.MustNewConstHistogram(buildDesc, s.n, s.seconds, buckets)
	for how, n := range map[string]int{"read": s.segs.read, "carried": s.segs.carried, "derived": s.segs.derived} {
		ch <- prometheus.MustNewConstMetric(segmentsDesc, prometheus.CounterValue, float64(n), how)
	}
}
