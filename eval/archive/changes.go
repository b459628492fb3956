package archive

// The week-to-week change sets follow the statistics definitions of the
// data README (§1): for the transition from week w−1 to week w,
//
//	created(w) = URLs present in w and absent in w−1
//	deleted(w) = URLs present in w−1 and absent in w
//	changed(w) = URLs present in both with a different body hash
//
// There is no transition into week 0, so all three are empty there, as the
// archive's *_series statistics are.

// Created returns the URLs created in week w, sorted.
func (a *Archive) Created(w int) []string {
	return a.transition(w, func(before, after int) bool { return before < 0 && after >= 0 })
}

// Deleted returns the URLs deleted in week w, sorted.
func (a *Archive) Deleted(w int) []string {
	return a.transition(w, func(before, after int) bool { return before >= 0 && after < 0 })
}

// Changed returns the URLs whose body changed in week w, sorted.
func (a *Archive) Changed(w int) []string {
	return a.transition(w, func(before, after int) bool {
		return before >= 0 && after >= 0 && a.hash(before) != a.hash(after)
	})
}

// transition returns the URLs for which keep(before, after) holds, where
// before and after are the intervals covering w−1 and w (-1 for none).
func (a *Archive) transition(w int, keep func(before, after int) bool) []string {
	if w <= 0 || w >= a.Weeks() {
		return nil
	}
	var urls []string
	for u, url := range a.ix.urls {
		before, after := -1, -1
		for id := int(a.ix.start[u]); id < int(a.ix.start[u+1]); id++ {
			iv := a.ix.ivs[id]
			if iv.covers(w - 1) {
				before = id
			}
			if iv.covers(w) {
				after = id
			}
		}
		if keep(before, after) {
			urls = append(urls, url)
		}
	}
	return urls
}

// hash returns the hash of interval id.
func (a *Archive) hash(id int) string { return a.ix.hashes[id*hashLen : (id+1)*hashLen] }
