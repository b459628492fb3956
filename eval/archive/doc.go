// Package archive reads the weekly snapshot archives of the evaluation data
// and answers, for any week, which pages existed and what their bodies were.
//
// The on-disk format is specified in the data README (shared/data/README.md,
// §1 "Archive format"); this package is its reader and checks every rule
// stated there:
//
//	archive.json        name, description, license, attribution, source_repo,
//	                    weeks [{week, date, commit}], stats {series, totals}
//	manifest.jsonl.zst  one zstd frame of JSON lines, sorted by (url, first):
//	                    {"url","first","last","hash","off","len"}
//	blobs.bin.zst       one zstd frame: all distinct bodies concatenated;
//	                    off/len index the decompressed stream
//
// Page url had body blobs[off:off+len] in weeks first..last inclusive; no
// interval covering week w means the page does not exist in week w.
//
// State. An Archive is immutable after Open and safe for concurrent use.
// It holds the decompressed blob stream as one []byte (every Page.Body is a
// capacity-clipped sub-slice of it, never a copy: 31 MB for tldr-en, 72 MB
// for digitalgov-2023), the distinct URLs as a sorted []string, and one
// 16-byte record per interval (32-bit offset and length, URL index, 16-bit
// week bounds) with the hashes in one shared string. Bounds: a blob stream
// up to 4 GiB, up to 65,536 weeks. Lookup is a binary search over the URLs
// and does not allocate.
//
// Thesis. The archives stand in for the evolving live web W_t of §4.2: week
// w of an archive is W_t at t = w. The change sets Created, Changed and
// Deleted follow the README's statistics definitions and reproduce the
// archive's created_series, changed_series and deleted_series exactly.
// Package replay serves an archive over HTTP one week at a time.
//
// Usage:
//
//	a, err := archive.Open(filepath.Join(data, "archives", "tldr-en"))
//	if err != nil { ... }
//	p, ok := a.Lookup("/common/tar.html", 12)   // p.Body, p.Hash, p.First, p.Last
//	for p := range a.Pages(12) { ... }           // the week's pages, sorted by URL
package archive
