package repo

import (
	"errors"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Versions written in format 1 (text and body each in its own zstd frame)
// still read; format 2 reads back what was written; a frame whose text
// length overruns it is corrupt, not a panic.
func TestVersionFormats(t *testing.T) {
	db := openMem(t)
	at := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	want := Version{FetchedAt: at, ContentType: "text/html", ContentHash: 7, Signature: []byte{1, 2}, Title: "T",
		Text: "plain words", Body: []byte("<p>plain words</p>")}

	e := encoder{}
	e.byte(versionFormatFrames)
	e.str(want.ContentType)
	e.uvarint(want.ContentHash)
	e.bytes(want.Signature)
	e.str(want.Title)
	e.bytes(db.zenc.EncodeAll([]byte(want.Text), nil))
	e.bytes(db.zenc.EncodeAll(want.Body, nil))
	for name, raw := range map[string][]byte{"format 1": e.b, "format 2": db.encodeVersion(&want)} {
		got, err := db.decodeVersion(at, raw, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Text != want.Text || string(got.Body) != string(want.Body) || got.Title != want.Title || got.ContentHash != want.ContentHash {
			t.Fatalf("%s: read %+v, wrote %+v", name, got, want)
		}
	}

	bad := encoder{}
	bad.byte(versionFormat)
	bad.str("text/html")
	bad.uvarint(0)
	bad.bytes(nil)
	bad.str("")
	bad.bytes(db.zenc.EncodeAll([]byte{200, 1, 'x'}, nil)) // says 200 bytes of text, holds 1
	if _, err := db.decodeVersion(at, bad.b, true); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("text length past the frame: %v, want ErrCorrupt", err)
	}
	bad.b[0] = 9
	if _, err := db.decodeVersion(at, bad.b, false); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unknown format: %v, want ErrCorrupt", err)
	}
}

func FuzzDecodeVersionNeverPanics(f *testing.F) {
	db, err := Open("", testConfig(), Options{FS: vfs.NewMem()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	f.Add(db.encodeVersion(&Version{ContentType: "text/html", Title: "t", Text: "words", Body: []byte("<p>words</p>")}))
	f.Add([]byte{versionFormatFrames})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		db.decodeVersion(time.Time{}, b, true)
	})
}
