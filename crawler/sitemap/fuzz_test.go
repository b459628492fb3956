package sitemap

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.xml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<urlset><url><loc>https://a/</loc><lastmod>2023-01-01</lastmod><priority>0.3</priority></url></urlset>`))
	f.Add([]byte(`<feed xml:base="../a/"><entry xml:base="b/.."><link xml:base="//h/c/" href="d"/></entry></feed>`))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"))
	f.Fuzz(func(t *testing.T, body []byte) {
		lim := Limits{MaxBytes: 1 << 16, MaxURLs: 10}
		res, err := Parse(body, lim)
		if res == nil {
			t.Fatal("nil result")
		}
		if n := len(res.URLs) + len(res.Sitemaps); n > lim.MaxURLs {
			t.Fatalf("%d entries kept, limit %d", n, lim.MaxURLs)
		}
		if err == nil && res.Format == FormatUnknown {
			t.Fatal("no error and no format")
		}
		for _, u := range append(res.URLs, res.Sitemaps...) {
			if u.Loc == "" || u.Priority < 0 || u.Priority > 1 {
				t.Fatalf("bad entry %+v", u)
			}
		}
	})
}
