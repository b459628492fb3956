package shingle

import (
	"fmt"
	"testing"
)

func BenchmarkCompute(b *testing.B) {
	for _, words := range []int{600, 10000} {
		text := page(1, words)
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				Compute(text, Options{})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

func BenchmarkDifference(b *testing.B) {
	x, y := Compute(page(1, 5000), Options{}), Compute(page(2, 5000), Options{})
	b.ReportAllocs()
	for b.Loop() {
		Difference(x, y)
	}
}

func BenchmarkMarshalBinary(b *testing.B) {
	s := Compute(page(1, 600), Options{})
	b.ReportAllocs()
	var n int
	for b.Loop() {
		buf, err := s.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		n = len(buf)
	}
	b.ReportMetric(float64(n), "B/page")
}
