package relation

import (
	"strings"
	"testing"
	"time"
)

func TestStoreRemoveKeepsTheChangeLog(t *testing.T) {
	s, st, cl := shopSync(t, ClientOptions{})
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(time.Hour), syncOpts(10)); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.items["a1"] = [2]string{"red apple", "1.40"}
	s.mu.Unlock()
	if _, err := Sync(t.Context(), st, cl, "fruit", t0.Add(48*time.Hour), syncOpts(10)); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Remove(t.Context(), "fruit", []string{"a1", "zz"}); err != nil || n != 1 {
		t.Fatalf("remove a1 and zz: %d removed, %v; want 1", n, err)
	}
	rows, _ := st.Rows(t.Context(), "fruit")
	if len(rows) != 2 || rows[0].ID != "a2" || rows[1].ID != "p1" {
		t.Errorf("rows after removing a1: %+v", rows)
	}
	if changes, _ := st.Changes(t.Context(), "fruit", 0, 10); len(changes) != 1 || changes[0].ID != "a1" {
		t.Errorf("change log after removing a1: %+v, want a1's change kept", changes)
	}
}

func TestStoreAddRefusesAnIDThatMakesNoItemURL(t *testing.T) {
	st, db := openStore(t, t.TempDir())
	defer db.Close()
	src := shopSource("http://shop.test")
	src.Item = "http://shop.test{id}"
	if err := st.Create(t.Context(), Definition{Name: "fruit", Source: src, Weight: "1", Dissimilarity: "changed", Created: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(t.Context(), "fruit", []string{"/ok", "x y"}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), `ID "x y"`) {
		t.Fatalf("add of x y with item http://shop.test{id}: %v, want an error naming the ID", err)
	}
	if _, err := st.Add(t.Context(), "fruit", []string{"/ok", "/a\x00"}, []float64{1, 1}); err == nil || !strings.Contains(err.Error(), "control character U+0000 at byte 2") {
		t.Fatalf("add of an ID with NUL: %v, want it refused, naming the byte", err)
	}
	if rows, _ := st.Rows(t.Context(), "fruit"); len(rows) != 0 {
		t.Errorf("a refused add stored %+v", rows)
	}
	if _, _, err := ParseIDs("/ok\n\nx y\n", src.CheckID); err == nil || !strings.Contains(err.Error(), `line 3: ID "x y"`) {
		t.Errorf("ParseIDs with the check: %v, want line 3 and the ID named", err)
	}
}
