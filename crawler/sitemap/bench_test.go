package sitemap

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "  <url>\n    <loc>https://digital.gov/2023/%02d/%02d/post-%d/</loc>\n    <lastmod>2023-%02d-%02dT10:00:00-05:00</lastmod>\n    <changefreq>weekly</changefreq>\n    <priority>0.6</priority>\n  </url>\n",
			i%12+1, i%28+1, i, i%12+1, i%28+1)
	}
	sb.WriteString("</urlset>\n")
	body := []byte(sb.String())
	for name, data := range map[string][]byte{"plain": body, "gzip": gzipped(b, body)} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data, Limits{MaxBytes: 50 << 20, MaxURLs: 50000}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "urls/s")
		})
	}
}
