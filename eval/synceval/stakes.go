package synceval

import (
	"cmp"
	"slices"
)

// stakeGroups sorts the pages live in week 0 by their stake μ(p) over the
// week-0 crawl's answers into groups: 0 holds the pages without a stake,
// 1 to 10 the tenths of the others, lowest first. It returns each
// group's URL ids, ascending by stake. The report's table of fetches by
// stake and the stake check (StakeChanges) use the same groups.
func (h *harness) stakeGroups() [11][]int32 {
	ids := make([]int32, 0, len(h.c.live[0]))
	for _, d := range h.c.live[0] {
		ids = append(ids, d.url)
	}
	slices.SortStableFunc(ids, func(a, b int32) int { return cmp.Compare(h.baseStakes[a], h.baseStakes[b]) })
	var groups [11][]int32
	zero := 0
	for zero < len(ids) && h.baseStakes[ids[zero]] <= 0 {
		zero++
	}
	groups[0] = ids[:zero]
	rest := ids[zero:]
	for i := range 10 {
		groups[i+1] = rest[i*len(rest)/10 : (i+1)*len(rest)/10]
	}
	return groups
}
