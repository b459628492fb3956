package index

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/deltaq/deltaq/internal/datasets"
	"github.com/deltaq/deltaq/internal/querylog"
)

// TestSnapTextIsBlevesAnalysis checks the in-memory text field against
// Bleve's own postings and the stored text, on an index where a page was
// re-indexed and another removed (so the snapshot has deleted documents):
// each term's documents and frequencies, each document's length (as the
// field norm encodes it) and its words (as analyzing the stored text gives
// them); and the stored fields read by document number against those read
// by URL, and the columns a result page reads against them too.
func TestSnapTextIsBlevesAnalysis(t *testing.T) {
	// Without background merges, each catch-up's batch stays a segment
	// of its own: a merge could otherwise leave one before the snapshot.
	ix := smallIndexWith(t, Options{MergeOnlyOnCompact: true})
	putPages(t, ix.db, t0.Add(1), page{URL: "https://a.test/plain", Title: "Plain language", Text: "Plain words, plain language, plain federal websites."})
	goPages(t, ix.db, t0.Add(2), "https://c.test/html")
	catchUp(t, ix)
	err := ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) error {
		st, err := buildSnapText(t.Context(), r, nil)
		if err != nil {
			return err
		}
		if n, _ := r.DocCount(); st.n != n || n != 4 {
			t.Fatalf("n = %d, want %d = 4", st.n, n)
		}
		segs, err := segmentsOf(r)
		if err != nil {
			return err
		}
		if len(segs.segs) < 2 {
			t.Fatalf("%d segments: the test wants documents numbered across segments", len(segs.segs))
		}
		var tfd bindex.TermFieldDoc
		docs := 0
		for id, term := range st.terms {
			tfr, err := r.TermFieldReader(t.Context(), []byte(term), FieldText, true, true, false)
			if err != nil {
				return err
			}
			var want []termPosting
			for {
				d, err := tfr.Next(&tfd)
				if err != nil {
					return err
				}
				if d == nil {
					break
				}
				want = append(want, termPosting{of: uint32(d.ID.Value()), tf: uint32(d.Freq)})
				if length := math.Round(1 / (d.Norm * d.Norm)); float64(st.docLength(d.ID.Value())) != length {
					t.Errorf("document %d: length %d, norm says %v", d.ID.Value(), st.docLength(d.ID.Value()), length)
				}
			}
			tfr.Close()
			if got := st.postings(term); !slices.Equal(got, want) {
				t.Errorf("%q: postings %v, Bleve %v", term, got, want)
			}
			if got, ok := st.term(term); !ok || got != uint32(id) {
				t.Errorf("%q: id %d %v, want %d", term, got, ok, id)
			}
		}
		// The dictionary: every word of a live document, and no other.
		dict, err := r.FieldDict(FieldText)
		if err != nil {
			return err
		}
		live, dead := 0, 0
		for {
			e, err := dict.Next()
			if err != nil {
				return err
			}
			if e == nil {
				break
			}
			df, err := docFreq(t.Context(), r, e.Term)
			if err != nil {
				return err
			}
			if _, ok := st.term(e.Term); ok != (df > 0) {
				t.Errorf("%q: in the text field %v, has a live document %v", e.Term, ok, df > 0)
			}
			if df > 0 {
				live++
			} else {
				dead++
			}
		}
		dict.Close()
		if live != len(st.terms) || dead == 0 {
			t.Errorf("%d words of live documents in Bleve's dictionary, %d in the text field; %d of deleted ones only: the test wants some",
				live, len(st.terms), dead)
		}
		for doc := range uint64(len(st.length)) {
			if st.docLength(doc) == 0 { // deleted or never held
				if st.urls[doc] != "" || len(st.storedText(doc)) != 0 {
					t.Errorf("document %d has no text but columns %q %q", doc, st.urls[doc], st.storedText(doc))
				}
				continue
			}
			docs++
			url, err := r.ExternalID(bindex.NewIndexInternalID(nil, doc))
			if err != nil {
				return err
			}
			stored, err := r.Document(url)
			if err != nil || stored == nil {
				t.Fatalf("document %d (%s): %v", doc, url, err)
			}
			title, text, fetched := storedFields(stored)
			var h Hit
			var stext string
			err = segs.stored(doc, &h, func(b []byte) { stext = string(b) })
			if err != nil || h.URL != url || stext != text || h.Title != title || !h.FetchedAt.Equal(fetched.Truncate(time.Second)) || h.Popularity != smallPopularity[url] {
				t.Errorf("%s: stored by number %q %+v (%v), by URL %q %q %v", url, stext, h, err, title, text, fetched)
			}
			if d, ok := st.liveDoc(url); !ok || d != doc || st.urls[doc] != url || string(st.storedText(doc)) != text || st.titles[doc] != title ||
				!st.fetched[doc].Equal(h.FetchedAt) || st.popularity[doc] != h.Popularity || int(st.snippetAt[doc]) != snippetStart(text, title) {
				t.Errorf("%s: columns %d %v %q %q %q %v %v %d, stored %q %q %v %v %d", url, d, ok, st.urls[doc], st.storedText(doc), st.titles[doc], st.fetched[doc], st.popularity[doc], st.snippetAt[doc],
					text, title, h.FetchedAt, h.Popularity, snippetStart(text, title))
			}
			tokens := ix.Analyzer().Analyze([]byte(text))
			want := map[string]uint32{}
			for _, tok := range tokens {
				want[string(tok.Term)]++
			}
			got := map[string]uint32{}
			for _, p := range st.docTerms(doc) {
				got[st.terms[p.of]] = p.tf
			}
			if !maps.Equal(got, want) || int(st.docLength(doc)) != len(tokens) {
				t.Errorf("%s: words %v (length %d), analysis %v (%d)", url, got, st.docLength(doc), want, len(tokens))
			}
		}
		if docs != 4 || len(st.docs) != 4 {
			t.Errorf("%d documents with text, %d URLs in the column, want 4", docs, len(st.docs))
		}
		if _, ok := st.liveDoc("https://c.test/html"); ok {
			t.Errorf("the removed page is in the URL column")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSearchSeesANewSnapshot: the in-memory text field is rebuilt when
// the index changes, so a word only the new copy has is found, and one
// only the old copy had is not.
func TestSearchSeesANewSnapshot(t *testing.T) {
	ix := smallIndex(t)
	if got, _ := searchURLs(t, ix, "zebra"); len(got) != 0 {
		t.Fatalf("zebra before the update: %v", got)
	}
	putPages(t, ix.db, t0.Add(1), page{URL: "https://c.test/html", Title: "Markup", Text: "A zebra page."})
	catchUp(t, ix)
	if got, _ := searchURLs(t, ix, "zebra"); !slices.Equal(got, []string{"https://c.test/html"}) {
		t.Fatalf("zebra after the update: %v", got)
	}
	if got, _ := searchURLs(t, ix, "escape"); len(got) != 0 {
		t.Fatalf("escape, a word of the old copy only: %v", got)
	}
}

// TestSortBestIsThePrefixOfTheFullOrder compares sortBest and keepBest
// with a full sort on seeded random candidates with many tied scores.
func TestSortBestIsThePrefixOfTheFullOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := rng.IntN(300)
		cands := make([]candidate, n)
		for i, doc := range rng.Perm(n) {
			cands[i] = candidate{doc: uint64(doc), score: float64(rng.IntN(1 + round%20))}
		}
		want := slices.Clone(cands)
		slices.SortFunc(want, compareCandidates)
		k := rng.IntN(n + 1)
		if got := sortBest(slices.Clone(cands), k); !slices.Equal(got, want[:k]) {
			t.Fatalf("sortBest, round %d: n %d, k %d: %v, want %v", round, n, k, got, want[:k])
		}
		var kept []candidate
		for _, c := range cands {
			kept = keepBest(kept, k%8, c, compareCandidates)
		}
		if !slices.Equal(kept, want[:min(n, k%8)]) {
			t.Fatalf("keepBest, round %d: n %d, k %d: %v, want %v", round, n, k%8, kept, want[:min(n, k%8)])
		}
	}
}

// TestSelectBestIsTheFullOrdersBest compares selectBest with a full sort
// on candidates many enough for the sampled threshold: scores spread,
// heavily tied, all equal, and laid out so that the sample sees only the
// best (its threshold then fronts too few, and the whole is selected).
func TestSelectBestIsTheFullOrdersBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fronted, fellBack := 0, 0
	for round := range 120 {
		n := 2048 + rng.IntN(8000)
		cands := make([]candidate, n)
		for i, doc := range rng.Perm(n) {
			var score float64
			switch round % 4 {
			case 0:
				score = rng.ExpFloat64()
			case 1:
				score = float64(rng.IntN(30))
			case 2:
				score = 1
			case 3:
				score = rng.Float64()
			}
			cands[i] = candidate{doc: uint64(doc), score: score}
		}
		if round%4 == 3 { // the sampled positions hold the best scores
			for j := range 128 {
				cands[j*n/128].score += 10
			}
		}
		want := slices.Clone(cands)
		slices.SortFunc(want, compareCandidates)
		k := 1 + rng.IntN(n/8)
		if front := frontBySample(slices.Clone(cands), k); front >= k {
			fronted++
		} else {
			fellBack++
		}
		got := selectBest(slices.Clone(cands), k)
		slices.SortFunc(got, compareCandidates)
		if !slices.Equal(got, want[:k]) {
			t.Fatalf("round %d: n %d, k %d: not the k best", round, n, k)
		}
	}
	if fronted < 30 || fellBack < 10 {
		t.Fatalf("%d selections from the fronted candidates, %d from all: want both", fronted, fellBack)
	}
}

// TestRetrieveUnorderedIsRetrieveRankedAsASet checks that the pages
// selected without sorting are the best ones, with the same scores, for
// trec-mq queries (short, long with RM3, OR fallback) on digitalgov
// week 0.
func TestRetrieveUnorderedIsRetrieveRankedAsASet(t *testing.T) {
	ix := week0Index(t, ScoringBM25).ix
	qs, err := querylog.Load(datasets.Path(t, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		t.Fatal(err)
	}
	byURL := func(a, b Ranked) int { return strings.Compare(a.URL, b.URL) }
	compared, numbered := 0, 0
	for _, qq := range qs[:200] {
		q, err := ParseQuery(qq.Text, ix.cfg.Limits())
		if err != nil {
			continue
		}
		for _, limit := range []int{0, 10, 200} {
			want, wantTotal, err := ix.RetrieveRanked(t.Context(), q, limit)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ix.RetrieveUnordered(t.Context(), q, limit)
			if err != nil {
				t.Fatal(err)
			}
			got, total := res.Pages, res.Total
			if res.Snapshot == 0 || len(res.Docs) != len(got) {
				t.Fatalf("%q: snapshot %d, %d document numbers for %d pages", qq.Text, res.Snapshot, len(res.Docs), len(got))
			}
			if err := ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) error {
				st, err := ix.snapText(t.Context(), r)
				if err != nil {
					return err
				}
				if st.id != res.Snapshot {
					return nil // a merge made another snapshot since
				}
				for i, d := range res.Docs {
					if st.urls[d] != got[i].URL {
						t.Fatalf("%q: document %d of snapshot %d is %s, not %s", qq.Text, d, st.id, st.urls[d], got[i].URL)
					}
				}
				numbered += len(res.Docs)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(want, byURL)
			slices.SortFunc(got, byURL)
			if total != wantTotal || !slices.Equal(got, want) {
				t.Fatalf("%q, limit %d: %d pages of %d unordered, %d of %d ranked, or not the same", qq.Text, limit, len(got), total, len(want), wantTotal)
			}
			compared += len(got)
		}
	}
	if compared < 10000 || numbered < compared/2 {
		t.Fatalf("only %d pages compared, %d of them by number", compared, numbered)
	}
}

// TestSaturationsAreBM25s checks the saturations kept per posting against
// BM25's expression, for every word of digitalgov week 0, and that they
// are computed once.
func TestSaturationsAreBM25s(t *testing.T) {
	ix := week0Index(t, ScoringBM25).ix
	k1, b := ix.cfg.Retrieval.K1, ix.cfg.Retrieval.B
	if err := ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) error {
		st, err := ix.snapText(t.Context(), r)
		if err != nil {
			return err
		}
		if len(st.terms) < 1000 {
			t.Fatalf("%d words", len(st.terms))
		}
		for id := range st.terms {
			s := st.saturations(uint32(id), k1, b, st.meanLen)
			post := st.postingsOf(uint32(id))
			if len(s.v) != len(post) {
				t.Fatalf("%q: %d saturations for %d postings", st.terms[id], len(s.v), len(post))
			}
			best := 0.0
			for j, d := range post {
				tf, norm := float64(d.tf), 1-b+b*float64(st.length[d.of])/st.meanLen
				if want := tf * (k1 + 1) / (tf + k1*norm); s.v[j] != want {
					t.Fatalf("%q in document %d (tf %d, length %d): %v, want %v", st.terms[id], d.of, d.tf, st.length[d.of], s.v[j], want)
				}
				best = max(best, s.v[j])
			}
			if s.max != best {
				t.Fatalf("%q: max %v, want %v", st.terms[id], s.max, best)
			}
			if st.saturations(uint32(id), k1, b, st.meanLen) != s {
				t.Fatalf("%q: computed again", st.terms[id])
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestOccurrencesAreTheTermVectors checks the snippet locations read from
// memory against those read from Bleve's term vectors, for the shown
// pages of trec-mq queries on digitalgov week 0.
func TestOccurrencesAreTheTermVectors(t *testing.T) {
	fx := week0Index(t, ScoringBM25)
	ix := fx.ix
	qs, err := querylog.Load(datasets.Path(t, "querylogs", "trec-mq.tsv"), querylog.FormatTopics)
	if err != nil {
		t.Fatal(err)
	}
	spans := 0
	err = ix.withSnapshot(func(r bindex.IndexReader, m mapping.IndexMapping) error {
		st, err := ix.snapText(t.Context(), r)
		if err != nil {
			return err
		}
		for _, qq := range qs[:100] {
			q, err := ParseQuery(qq.Text, ix.cfg.Limits())
			if err != nil {
				continue
			}
			_, docs, _, err := ix.match(t.Context(), r, m, st, q, 10)
			if err != nil {
				return err
			}
			mem, err := ix.locations(t.Context(), r, st, q, docs, nil)
			if err != nil {
				return err
			}
			vectors, err := ix.locations(t.Context(), r, nil, q, docs, nil)
			if err != nil {
				return err
			}
			for i := range docs {
				if !slices.Equal(mem[i], vectors[i]) {
					t.Errorf("%q, document %d: %v from memory, %v from the term vectors", qq.Text, docs[i], mem[i], vectors[i])
				}
				spans += len(mem[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if spans < 1000 {
		t.Fatalf("only %d occurrences compared", spans)
	}
}

// BenchmarkSnapText builds the in-memory text field and result-page
// columns of digitalgov week 0 (5,000 pages, compacted to one segment)
// after a batch of the first 100 pages that change in week 1: "read"
// from nothing, as the first search of an index does, and "carried" from
// the build of the snapshot before the batch, as the first search after
// it does. It reports the time and allocation of a build, the heap the
// whole snapText keeps and the part of it the result-page columns take
// (measured by dropping them).
//
//	go test ./index -run '^$' -bench 'SnapText$' -benchtime 10x
func BenchmarkSnapText(b *testing.B) {
	db := openRepo(b, b.TempDir())
	ix := openIndex(b, tempDir(b, "ix"), testConfig(ScoringBM25), db, Options{MergeOnlyOnCompact: true})
	week0 := digitalgov(b, 0)
	putPages(b, db, t0, week0.pages...)
	catchUp(b, ix)
	if err := ix.Compact(b.Context()); err != nil {
		b.Fatal(err)
	}
	var before *snapText
	err := ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) (err error) {
		before, err = buildSnapText(b.Context(), r, nil)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	var batch []page
	for _, p := range digitalgov(b, 1).pages {
		if old, ok := week0.byURL[p.URL]; ok && old != p {
			if batch = append(batch, p); len(batch) == 100 {
				break
			}
		}
	}
	putPages(b, db, t0.Add(7*24*time.Hour), batch...)
	catchUp(b, ix)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	err = ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) error {
		for _, prev := range []*snapText{nil, before} {
			name := "read"
			if prev != nil {
				name = "carried"
			}
			b.Run(name, func(b *testing.B) {
				var st *snapText
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if st, err = buildSnapText(b.Context(), r, prev); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				withAll := heap()
				st.urls, st.docs, st.titles, st.fetched, st.popularity, st.textAt, st.snippetAt, st.text = nil, nil, nil, nil, nil, nil, nil, nil
				withText := heap()
				runtime.KeepAlive(st)
				st = nil
				none := heap()
				b.ReportMetric(float64(withAll-none)/1e6, "kept-MB")
				b.ReportMetric(float64(withAll-withText)/1e6, "columns-MB")
			})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// TestSnapTextCarriedIsTheSame builds each snapshot's text field twice,
// from nothing and from the build of the snapshot before, over random
// batches that add, rewrite and remove pages (so old segments lose
// documents, and words survive only in deleted ones) and merges, some
// right after a batch (the merged segment holds pages the last build did
// not) and some alone (it holds only pages the last build did); the two
// must be equal, and segments must have been carried, with documents
// dropped from them, and derived.
func TestSnapTextCarriedIsTheSame(t *testing.T) {
	db := openRepo(t, t.TempDir())
	ix := openIndex(t, tempDir(t, "ix"), testConfig(ScoringBM25), db, Options{MergeOnlyOnCompact: true})
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := strings.Fields("plain language federal website access design search data form page news event topic guide")
	var prev *snapText
	var built buildCounts
	dropped := 0
	check := func(step int) {
		err := ix.withSnapshot(func(r bindex.IndexReader, _ mapping.IndexMapping) error {
			want, err := buildSnapText(t.Context(), r, nil)
			if err != nil {
				return err
			}
			got, err := buildSnapText(t.Context(), r, prev)
			if err != nil {
				return err
			}
			if want.built.carried+want.built.derived != 0 || want.built.read != len(want.segs) {
				t.Fatalf("step %d: a build from nothing had its segments as %+v", step, want.built)
			}
			built = built.plus(got.built)
			got.built = want.built
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d: the build from the last snapshot's differs from the build from nothing", step)
			}
			if prev != nil {
				for _, s := range got.segs {
					for _, o := range prev.segs {
						if s.id == o.id && s.deleted > o.deleted {
							dropped++
						}
					}
				}
			}
			prev = got
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for step := range 60 {
		var pages []page
		for i := range 1 + rng.IntN(6) {
			words := []string{fmt.Sprintf("only%dx%d", step, i)} // a word of this version alone
			for range 3 + rng.IntN(12) {
				words = append(words, vocab[rng.IntN(len(vocab))])
			}
			pages = append(pages, page{URL: fmt.Sprintf("https://p.test/%d", rng.IntN(30)), Title: vocab[rng.IntN(len(vocab))], Text: strings.Join(words, " ")})
		}
		putPages(t, db, t0.Add(time.Duration(step)*time.Minute), pages...)
		if rng.IntN(4) == 0 {
			goPages(t, db, t0.Add(time.Duration(step)*time.Minute+time.Second), fmt.Sprintf("https://p.test/%d", rng.IntN(30)))
		}
		catchUp(t, ix)
		if step%9 == 8 { // the merge below is alone
			check(step)
		}
		if step%9 == 8 || step%7 == 6 {
			if err := ix.Compact(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		check(step)
	}
	if built.carried == 0 || dropped == 0 || built.derived == 0 || built.read == 0 {
		t.Fatalf("segments %+v, %d carried with documents deleted since: the test wants each", built, dropped)
	}
}

func (c buildCounts) plus(d buildCounts) buildCounts {
	return buildCounts{c.read + d.read, c.carried + d.carried, c.derived + d.derived}
}

// TestFindPostingIsBinarySearch checks the postings' search against
// slices.BinarySearchFunc on random ascending lists, for documents in
// them, between them, before and after them and beyond 32 bits.
func TestFindPostingIsBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		l := make([]termPosting, rng.IntN(40))
		next := uint32(rng.IntN(3))
		for i := range l {
			l[i] = termPosting{of: next, tf: 1}
			next += 1 + uint32(rng.IntN(4))
		}
		for doc := uint64(0); doc <= uint64(next)+1; doc++ {
			for _, d := range []uint64{doc, doc + math.MaxUint32 + 1} {
				k, found := findPosting(l, d)
				wk, wfound := slices.BinarySearchFunc(l, d, func(p termPosting, d uint64) int {
					if uint64(p.of) < d {
						return -1
					}
					if uint64(p.of) > d {
						return 1
					}
					return 0
				})
				if k != wk || found != wfound {
					t.Fatalf("trial %d: doc %d in %v: (%d, %v), want (%d, %v)", trial, d, l, k, found, wk, wfound)
				}
			}
		}
	}
}
