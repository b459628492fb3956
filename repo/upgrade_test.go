package repo

import (
	"fmt"
	"testing"
)

// TestUpgradeCommitsInBatchesAndOnce runs an update of five writes two a
// batch: every write lands, the mark is set, and a second run does
// nothing.
func TestUpgradeCommitsInBatchesAndOnce(t *testing.T) {
	db := openMem(t)
	runs := 0
	update := func(batch func() *Batch, done func() error) error {
		runs++
		for i := range 5 {
			if err := batch().PutBucket("feeds", fmt.Sprintf("x/%d", i), []byte{1}); err != nil {
				return err
			}
			if err := done(); err != nil {
				return err
			}
		}
		return nil
	}
	for range 2 {
		if err := db.Upgrade(t.Context(), "feeds", "v/test", 2, update); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, err := range db.BucketScan(t.Context(), "feeds", "x/") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 5 || runs != 1 {
		t.Errorf("%d of 5 writes stored after %d runs; want all after one", n, runs)
	}
	if _, err := db.Bucket("feeds", "v/test"); err != nil {
		t.Errorf("the mark: %v", err)
	}
}
