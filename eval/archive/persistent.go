package archive

import "strings"

// Persistent returns a view of a holding only the URLs that exist in every
// week, with all their intervals: the data sets of thesis §4.7, where
// "pages not present in all 48 weekly snapshots were removed" so that an
// experiment on re-downloading is not confounded by pages appearing and
// vanishing. The view shares a's bodies; interval IDs are renumbered.
func (a *Archive) Persistent() *Archive {
	weeks := a.Weeks()
	ix := &index{counts: make([]int32, weeks)}
	var hashes strings.Builder
	for u, url := range a.ix.urls {
		lo, hi := a.ix.start[u], a.ix.start[u+1]
		covered := 0
		for _, iv := range a.ix.ivs[lo:hi] {
			covered += int(iv.last) - int(iv.first) + 1
		}
		if covered != weeks { // intervals never overlap (parseManifest)
			continue
		}
		ix.urls = append(ix.urls, url)
		ix.start = append(ix.start, int32(len(ix.ivs)))
		for id := lo; id < hi; id++ {
			iv := a.ix.ivs[id]
			iv.url = int32(len(ix.urls) - 1)
			ix.ivs = append(ix.ivs, iv)
			hashes.WriteString(a.hash(int(id)))
		}
	}
	ix.start = append(ix.start, int32(len(ix.ivs)))
	ix.hashes = hashes.String()
	for w := range ix.counts {
		ix.counts[w] = int32(len(ix.urls))
	}
	return &Archive{meta: a.meta, blob: a.blob, ix: ix}
}
