package feeds

import (
	"math/rand/v2"
	"time"
)

// LearnAll learns every feed's model from its posting times in [from, to):
// it clusters the feeds' daily patterns, then shrinks each feed's own
// hour-of-day shares towards its cluster's centroid and its weekday shares
// towards all feeds' weekday shares (Sia & Cho §5, learning posting rates
// and patterns; clusters for sparse feeds). It also returns the centroids.
func LearnAll(cfg Config, postings [][]time.Time, from, to time.Time, rng *rand.Rand) ([]Model, []Daily) {
	counts := make([]Counts, len(postings))
	var weekday [7]float64
	total := 0.0
	for i, p := range postings {
		counts[i] = Count(p, from, to)
		for d, v := range counts[i].Weekday {
			weekday[d] += v
			total += v
		}
	}
	for d := range weekday {
		if total > 0 {
			weekday[d] /= total
		} else {
			weekday[d] = 1.0 / 7
		}
	}
	centroids, assign := Cluster(counts, cfg.Clusters, cfg.ClusterMinPostings, cfg.ClusterIterations, rng)
	models := make([]Model, len(postings))
	for i, c := range counts {
		models[i] = Learn(c, Prior{
			Daily: centroids[assign[i]], Weekday: weekday,
			Weight: cfg.PriorWeight, Floor: cfg.Floor, RateCount: cfg.RateCount,
		}, assign[i])
	}
	return models, centroids
}
