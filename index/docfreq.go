package index

// docFreqs holds df, the number of documents containing each workload term,
// in step with the index. It is counted from the postings when the
// histograms are built and then moved by every batch, by the postings the
// batch removes (the old copies' terms) and adds (the new copies' terms) —
// the bookkeeping §4.6.2 describes — so the measurement needs no postings
// lookups on its hot path. 8 bytes per workload term.
//
// It is exact as long as each page's snapshot describes the copy in the
// index. The one exception is the batch that was being applied when the
// process died (Bleve applied it, the repository commit did not happen); the
// histograms, and with them df, are rebuilt once the replay has passed it.
type docFreqs struct {
	workload uint64 // fingerprint of the workload the ids belong to
	df       []int64
}

func (d *docFreqs) get(id int32) uint64 {
	if int(id) >= len(d.df) || d.df[id] < 0 {
		return 0
	}
	return uint64(d.df[id])
}

func (d *docFreqs) add(id int32, n int64) {
	if int(id) < len(d.df) {
		d.df[id] += n
	}
}
