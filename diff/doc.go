// Package diff says what changed between two copies of a page or of an
// object on it: added and removed text at word and at line granularity,
// added and removed links, and the fraction of the content that changed;
// and it renders the result side by side or as changes only, in HTML and
// JSON.
//
// WebCQ (Liu, Tang, Buttler, Pu):
//
//   - §4.1 difference generation, content-only: markup is ignored and the
//     difference is computed over the word sequence (and, for the line view,
//     over text lines). A changed word is a deletion followed by an
//     insertion, as in HtmlDiff.
//   - §3.2 set-based sentinel types (links, images, words): added and
//     removed members by set difference (Sets).
//   - §4.2 presentation: side-by-side (both copies, changes marked) and
//     only-the-differences (removed and added runs, with a little common
//     context), each as HTML; the same result as JSON for the API.
//
// Why go-diff and not crawler/shingle: the shingle signature is a bottom-k
// sketch made to estimate how much a page changed (thesis §4.7.1) without
// the old copy. It keeps 128 hashes and no positions, so it cannot say which
// words were added or removed, which is the whole point of a change report.
// A diff needs both copies and an alignment; github.com/sergi/go-diff is a
// maintained Myers O(ND) implementation with the line-mode trick (each
// distinct token mapped to one rune, so the diff runs over tokens, not
// characters), and a deadline that bounds its time
// on hostile input (diff.timeout). Shingles stay the cheap pre-filter they
// are: a page whose MD5 did not move is never diffed (package watch).
//
// State: none that a caller sees; align keeps a pool of token maps and
// rune buffers, safe for concurrent use, that a diff of more than 16,384
// tokens does not return to. Bounds: the inputs are bounded by the caller
// (extracted text, at most extract.max_text_bytes); the diff's time by
// Options.Timeout, after which go-diff returns a coarser but correct diff;
// the diff a caller keeps by Result.Capped (Options.MaxBytes), which ends
// each view with an Omitted run counting the changed tokens it left out,
// and counts the links it left out (SetChange.AddedOmitted,
// RemovedOmitted).
//
//	d := diff.Text(oldText, newText, diff.Options{Timeout: time.Second})
//	d.Links = diff.Sets(oldLinks, newLinks)
//	fmt.Println(d.Fraction, d.Added(), d.Removed())
//	err := d.WriteHTML(w, diff.SideBySide)
//	b, err := json.Marshal(d.ChangesOnly())
package diff
