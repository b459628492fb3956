package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestBackupWhileOpenAgreesWithItsRepository backs up an open index
// while another goroutine keeps indexing, then opens the copy: it catches
// up from its repository's watermark and then finds exactly the pages its
// repository holds, not those indexed after the backup.
func TestBackupWhileOpenAgreesWithItsRepository(t *testing.T) {
	dir := t.TempDir()
	db := openRepo(t, filepath.Join(dir, "repo"))
	ix := openIndex(t, filepath.Join(dir, "index"), testConfig(ScoringBM25), db, Options{})
	putPages(t, db, t0, page{URL: "http://a.test/harbor", Title: "Harbor", Text: "The harbor opens at dawn."})
	catchUp(t, ix)

	// Pages keep coming while the backup runs.
	done := make(chan error, 1)
	go func() {
		for i := range 20 {
			if err := writePages(db, t0.Add(time.Duration(i)*time.Minute), page{URL: "http://a.test/lantern/" + string(rune('a'+i)), Title: "Lantern", Text: "A lantern by the quay."}); err != nil {
				done <- err
				return
			}
			if _, err := ix.CatchUp(context.Background()); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	backup := filepath.Join(t.TempDir(), "copy")
	if err := ix.Backup(t.Context(), filepath.Join(backup, "repo"), filepath.Join(backup, "index")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := ix.Backup(t.Context(), filepath.Join(backup, "repo"), filepath.Join(t.TempDir(), "index")); err == nil {
		t.Error("a backup into an existing directory succeeded")
	}

	cdb := openRepo(t, filepath.Join(backup, "repo"))
	cix := openIndex(t, filepath.Join(backup, "index"), testConfig(ScoringBM25), cdb, Options{})
	// The checkpoint may hold a page committed while the index waited
	// for the backup: the copy applies it, and nothing before it again.
	if st := catchUp(t, cix); st.Changes > 1 || cix.Watermark() != cdb.LastChangeSeq() {
		t.Errorf("the copy caught up on %d changes, watermark %d of %d; want at most 1, all applied", st.Changes, cix.Watermark(), cdb.LastChangeSeq())
	}
	urls := func(ix *Index, q string) []string {
		t.Helper()
		pq, err := ParseQuery(q, testConfig(ScoringBM25).Limits())
		if err != nil {
			t.Fatal(err)
		}
		hits, _, err := ix.Retrieve(t.Context(), pq, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.URL)
		}
		slices.Sort(out)
		return out
	}
	if got := urls(cix, "harbor"); !slices.Equal(got, []string{"http://a.test/harbor"}) {
		t.Errorf("the copy finds %q for harbor", got)
	}
	// The copy's lantern pages are those its repository holds, however
	// many the backup caught.
	var held []string
	for p, err := range cdb.Pages(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if p.URL != "http://a.test/harbor" {
			held = append(held, p.URL)
		}
	}
	slices.Sort(held)
	if got := urls(cix, "lantern"); !slices.Equal(got, held) {
		t.Errorf("the copy finds %q for lantern, its repository holds %q", got, held)
	}
	if got := urls(ix, "lantern"); len(got) != 20 {
		t.Errorf("the original finds %d lantern pages, want 20", len(got))
	}
}
