package robots

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkAllowed(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("User-agent: *\n")
	for i := range 200 {
		fmt.Fprintf(&sb, "Disallow: /section-%d/*.php$\nAllow: /section-%d/public/\n", i, i)
	}
	g := Parse([]byte(sb.String())).Group("deltaqbot")
	paths := []string{"/section-150/public/page.html", "/section-42/index.php", "/about/team.html?lang=en"}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range paths {
			g.Allowed(p)
		}
	}
	b.ReportMetric(float64(b.N*len(paths))/b.Elapsed().Seconds(), "checks/s")
}

func BenchmarkParse(b *testing.B) {
	body := []byte(strings.Repeat("User-agent: a\nUser-agent: b\nDisallow: /x/*.gif$\nAllow: /x/y\nCrawl-delay: 1\n# comment\n\n", 100))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(body).Group("b")
	}
}
