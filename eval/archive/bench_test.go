package archive

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deltaq/deltaq/internal/datasets"
)

// BenchmarkOpen measures Open on each real archive. MB/s is decompressed
// body bytes per second; compressed-MB/s counts the two .zst files read.
func BenchmarkOpen(b *testing.B) {
	for _, name := range realArchives {
		b.Run(name, func(b *testing.B) {
			dir := datasets.Path(b, "archives", name)
			a, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			var compressed int64
			for _, f := range []string{BlobsFile, ManifestFile} {
				st, err := os.Stat(filepath.Join(dir, f))
				if err != nil {
					b.Fatal(err)
				}
				compressed += st.Size()
			}
			b.SetBytes(int64(a.BlobSize()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Open(dir); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(compressed)*float64(b.N)/1e6/b.Elapsed().Seconds(), "compressed-MB/s")
		})
	}
}

// BenchmarkLookup measures one page lookup in the tldr archive, cycling
// through week 47's URLs.
func BenchmarkLookup(b *testing.B) {
	a, err := Open(datasets.Path(b, "archives", "tldr-en"))
	if err != nil {
		b.Fatal(err)
	}
	urls := a.URLs()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a.Lookup(urls[i%len(urls)], 47)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
}
