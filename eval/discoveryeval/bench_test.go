package discoveryeval

import (
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

// BenchmarkLoadSite measures reading tldr-en: parsing every archived body
// once and building the 47 weekly H_t.
func BenchmarkLoadSite(b *testing.B) {
	dir := datasets.Path(b, "archives", "tldr-en")
	cfg := testConfig()
	var s *site
	for b.Loop() {
		var err error
		if s, err = openSite(b, cfg, dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.links.intervals)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkEvaluate measures every experiment on tldr-en once its H_t are
// built.
func BenchmarkEvaluate(b *testing.B) {
	dir := datasets.Path(b, "archives", "tldr-en")
	cfg := testConfig()
	s, err := openSite(b, cfg, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := evaluate(b.Context(), cfg, s); err != nil {
			b.Fatal(err)
		}
	}
}
