package repo

import (
	"errors"
	"testing"
	"time"
)

func TestRemovePageLeavesNothingOfThePageAndTellsTheIndex(t *testing.T) {
	db := openMem(t)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const a, b, c = "http://x.test/a", "http://x.test/b", "http://x.test/c"
	commit(t, db, func(bt *Batch) error {
		for _, u := range []string{a, b, c} {
			if err := bt.PutPage(&Page{URL: u, State: StateLive}); err != nil {
				return err
			}
		}
		if err := bt.PutHost(&HostState{Host: "x.test", Pages: 3}); err != nil {
			return err
		}
		if err := bt.AddVersion(b, &Version{FetchedAt: at, Body: []byte("<p>b</p>")}); err != nil {
			return err
		}
		if err := bt.LogFetch(b, &FetchRecord{At: at}); err != nil {
			return err
		}
		if err := bt.SetOutLinks(a, []Link{{URL: b}}); err != nil {
			return err
		}
		return bt.SetOutLinks(b, []Link{{URL: c}, {URL: a}})
	})
	before := db.LastChangeSeq()
	var ok bool
	commit(t, db, func(bt *Batch) error {
		var err error
		ok, err = bt.RemovePage(b, at)
		return err
	})
	if !ok {
		t.Fatal("RemovePage did not find the page")
	}
	if _, err := db.Page(b); !errors.Is(err, ErrNotFound) {
		t.Errorf("page: %v", err)
	}
	if vs, _ := db.Versions(t.Context(), b, true); len(vs) != 0 {
		t.Errorf("%d versions left", len(vs))
	}
	if log, _ := db.FetchLog(t.Context(), b); len(log) != 0 {
		t.Errorf("%d fetch-log lines left", len(log))
	}
	if out, _ := db.OutLinks(t.Context(), b); len(out) != 0 {
		t.Errorf("out-links left: %v", out)
	}
	for _, dst := range []string{a, c} {
		if in, _ := db.InLinks(t.Context(), dst); len(in) != 0 {
			t.Errorf("in-links of %s still name the removed page: %v", dst, in)
		}
	}
	// a's link to b is a fact about a: it stays.
	if in, _ := db.InLinks(t.Context(), b); len(in) != 1 || in[0] != a {
		t.Errorf("in-links of the removed page: %v, want a's", in)
	}
	if h, _ := db.Host("x.test"); h.Pages != 2 {
		t.Errorf("host page count %d, want 2", h.Pages)
	}
	ch, err := db.Changes(t.Context(), before, 10)
	if err != nil || len(ch) != 1 || ch[0].URL != b || ch[0].Kind != ChangeDelete {
		t.Errorf("change feed after removal: %+v, %v", ch, err)
	}
	commit(t, db, func(bt *Batch) error {
		var err error
		ok, err = bt.RemovePage(b, at)
		return err
	})
	if ok {
		t.Error("removing a page twice found it the second time")
	}
}
