package extract

import (
	"testing"
)

// BenchmarkHTML measures extraction on the two realistic pages in testdata:
// a tldr command page (3 KB, the size of the archive's pages) and a
// digital.gov news article as the live site serves it (40 KB: banner,
// mega-menu, article, sidebar, footer, scripts).
func BenchmarkHTML(b *testing.B) {
	for _, tc := range []struct{ name, file, page string }{
		{"tldr", "tldr-tar.html", "https://tldr.example/common/tar.html"},
		{"digitalgov", "digitalgov-article.html", "https://digital.gov/2023/05/11/a-new-way-to-build-accessible-forms/"},
	} {
		body := readTestdata(b, tc.file)
		page := mustURL(b, tc.page)
		lim := Limits{MaxLinks: 1000, MaxTextBytes: 1 << 20, MaxDepth: 256, MaxNodes: 100000}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := HTML(body, "text/html; charset=utf-8", page, lim); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
