package index

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// verifySegments checks every segment file of bi's current snapshot
// against the CRC-32 its footer keeps of the rest of the file. Bleve reads
// a segment's parts only when a search asks for them, so a damaged one
// would open without a word and then fail searches one by one; checked at
// open, it is found before anything is served, and the index is rebuilt
// (ErrDamaged). The read costs about what copying the index would.
func verifySegments(bi bleve.Index) error {
	adv, err := bi.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	for _, s := range snap.Segments() {
		seg, ok := s.Segment().(interface {
			Path() string
			CRC() uint32
		})
		if !ok || seg.Path() == "" {
			continue // a segment still in memory has no file to check
		}
		if err := checkCRC(seg.Path(), seg.CRC()); err != nil {
			return err
		}
	}
	return nil
}

// checkCRC compares the CRC-32 (IEEE) of the file at path, its last four
// bytes left out, with want, the value they hold.
func checkCRC(path string, want uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < 4 {
		return fmt.Errorf("segment %s: %d bytes, shorter than its footer", filepath.Base(path), st.Size())
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.LimitReader(f, st.Size()-4)); err != nil {
		return fmt.Errorf("segment %s: %w", filepath.Base(path), err)
	}
	if got := h.Sum32(); got != want {
		return fmt.Errorf("segment %s: its bytes have CRC-32 %08x, its footer says %08x", filepath.Base(path), got, want)
	}
	return nil
}
