package urlnorm

import (
	"net/url"
	"testing"
)

func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"clean", "https://digital.gov/2023/05/11/a-new-way-to-build-accessible-forms/"},
		{"messy", "HTTP://User@Digital.GOV:80/2023/./05/../05/%7enews%2fx/index.html?utm_source=a%2b#top"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Normalize(bc.in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
		})
	}
}

func BenchmarkResolve(b *testing.B) {
	base, err := url.Parse("https://tldr.inbrowser.app/pages/common/tar.html")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resolve(base, "../linux/apt-get.html"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "links/s")
}

func BenchmarkSURT(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SURT("https://www.digital.gov/2023/05/11/a-new-way/"); err != nil {
			b.Fatal(err)
		}
	}
}
