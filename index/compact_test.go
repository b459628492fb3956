package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAssumedCompactionIsCompaction replays the same batches into two
// indexes opened with MergeOnlyOnCompact: one compacted after the second
// batch, the other told the compacted vocabulary (AssumeCompacted). After
// that batch and after a third one, BM25's statistics and every ranking
// are the same, bit for bit; a wrong vocabulary on a compacted index is
// refused.
func TestAssumedCompactionIsCompaction(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	text := func(words int) string {
		var b strings.Builder
		for range words {
			fmt.Fprintf(&b, "w%d ", int(rng.ExpFloat64()*40))
		}
		return b.String()
	}
	var batches [3][]page
	for i := range 60 {
		batches[0] = append(batches[0], page{URL: fmt.Sprintf("http://a.test/%d", i), Title: "t", Text: text(5 + rng.IntN(60))})
	}
	for i := 0; i < 60; i += 3 {
		batches[1] = append(batches[1], page{URL: fmt.Sprintf("http://a.test/%d", i), Title: "t", Text: text(5 + rng.IntN(60))})
	}
	for i := 1; i < 60; i += 4 {
		batches[2] = append(batches[2], page{URL: fmt.Sprintf("http://a.test/%d", i), Title: "t", Text: text(5 + rng.IntN(60))})
	}
	open := func(name string) *Index {
		db := openRepo(t, tempDir(t, name+"-repo"))
		ix := openIndex(t, tempDir(t, name+"-index"), testConfig(ScoringBM25), db, Options{MergeOnlyOnCompact: true})
		putPages(t, db, t0, batches[0]...)
		catchUp(t, ix)
		if err := ix.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		putPages(t, db, t0.Add(time7d), batches[1]...)
		goPages(t, db, t0.Add(time7d), "http://a.test/59")
		catchUp(t, ix)
		return ix
	}
	compacted, assumed := open("compacted"), open("assumed")
	if err := compacted.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := reader(compacted.bleve())
	if err != nil {
		t.Fatal(err)
	}
	vocab, err := compacted.textCardinality(r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := compacted.AssumeCompacted(vocab + 1); err == nil {
		t.Error("AssumeCompacted accepted a vocabulary the compacted index does not have")
	}
	if err := assumed.AssumeCompacted(vocab); err != nil {
		t.Fatal(err)
	}
	queries := []Query{{Terms: []string{"w0"}}, {Terms: []string{"w1 w2"}}, {Terms: []string{"w3 w0 w5"}}, {Terms: []string{"w40"}}}
	same := func(stage string) {
		t.Helper()
		a, err := compacted.Ranker()
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := assumed.Ranker()
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if a.Stats() != b.Stats() {
			t.Errorf("%s: statistics %+v compacted, %+v assumed", stage, a.Stats(), b.Stats())
		}
		for _, q := range queries {
			ra, err := a.Rank(ctx, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := b.Rank(ctx, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(ra) == 0 || !slices.Equal(ra, rb) {
				t.Errorf("%s: %q ranks\n%v compacted,\n%v assumed", stage, q.Terms[0], ra, rb)
			}
		}
	}
	same("after the compaction")
	for _, ix := range []*Index{compacted, assumed} {
		putPages(t, ix.db, t0.Add(2*time7d), batches[2]...)
		catchUp(t, ix)
	}
	same("after a later batch")
}

const time7d = 7 * 24 * time.Hour
