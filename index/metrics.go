package index

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// textMetrics are the builds of the in-memory text field a search waits
// for on each new index snapshot: how long they took, and how their
// segments were had.
type textMetrics struct {
	seconds  prometheus.Histogram
	segments *prometheus.CounterVec
	// lastBuilt counts the searches a serving index answered from the
	// last snapshot built while a newer one's build was to come.
	lastBuilt prometheus.Counter
}

func newTextMetrics() textMetrics {
	return textMetrics{
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "deltaq_index_text_build_seconds",
			Help: "Builds of the in-memory text field of each new index snapshot, which a search waits for unless the index is serving, when searches use the last one built meanwhile.",
			// From a carried build of a small index to a read of a large one.
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}),
		segments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "deltaq_index_text_build_segments_total",
			Help: "Segments of the snapshots built, by how they were had: read from the index, carried over from the last build, or derived from it (a merge).",
		}, []string{"how"}),
		lastBuilt: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "deltaq_index_searches_on_last_built_total",
			Help: "Searches a serving index answered from the last snapshot whose text field was built, a newer snapshot's being built or to be built: the pages of its last pass were not found yet.",
		}),
	}
}

func (m textMetrics) observe(took time.Duration, c buildCounts) {
	m.seconds.Observe(took.Seconds())
	m.segments.WithLabelValues("read").Add(float64(c.read))
	m.segments.WithLabelValues("carried").Add(float64(c.carried))
	m.segments.WithLabelValues("derived").Add(float64(c.derived))
}

func (m textMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.seconds.Describe(ch)
	m.segments.Describe(ch)
	m.lastBuilt.Describe(ch)
}

func (m textMetrics) Collect(ch chan<- prometheus.Metric) {
	m.seconds.Collect(ch)
	m.segments.Collect(ch)
	m.lastBuilt.Collect(ch)
}

// Collector exposes the builds of the in-memory text field to
// Prometheus; register it with the registry the HTTP server serves on
// /metrics.
func (ix *Index) Collector() prometheus.Collector { return ix.texts.metrics }
