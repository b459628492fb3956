package feeds

import (
	"math"
	"math/rand/v2"
)

// Cluster groups feeds by their daily posting pattern (Sia & Cho §5,
// "posting pattern clusters": k-means on 24-dimensional vectors of the
// share of a day's postings in each hour). Feeds with at least minPostings
// are clustered; the centroids are the shared profiles. Every feed, dense
// or sparse, is then assigned the centroid under which its own postings are
// most likely, so a sparse feed borrows the pattern its few postings point
// to. It returns the centroids and each feed's cluster.
func Cluster(counts []Counts, k, minPostings, iterations int, rng *rand.Rand) ([]Daily, []int) {
	var points []Daily
	for _, c := range counts {
		if c.N >= minPostings {
			points = append(points, *c.DailyShare())
		}
	}
	centroids := kmeans(points, k, iterations, rng)
	if len(centroids) == 0 {
		centroids = []Daily{Uniform()}
	}
	assign := make([]int, len(counts))
	for i, c := range counts {
		best, bestLL := 0, math.Inf(-1)
		for j, ctr := range centroids {
			if ll := logLikelihood(c.Hour, ctr); ll > bestLL {
				best, bestLL = j, ll
			}
		}
		assign[i] = best
	}
	return centroids, assign
}

// kmeans is Lloyd's algorithm from a k-means++ start.
func kmeans(points []Daily, k, iterations int, rng *rand.Rand) []Daily {
	if len(points) == 0 || k <= 0 {
		return nil
	}
	k = min(k, len(points))
	centroids := []Daily{points[rng.IntN(len(points))]}
	for len(centroids) < k {
		d := make([]float64, len(points))
		total := 0.0
		for i, p := range points {
			d[i] = nearest(p, centroids).dist
			total += d[i]
		}
		if total == 0 {
			break
		}
		x := rng.Float64() * total
		i := 0
		for ; i < len(points)-1 && x >= d[i]; i++ {
			x -= d[i]
		}
		centroids = append(centroids, points[i])
	}
	for range iterations {
		var sums = make([]Daily, len(centroids))
		counts := make([]int, len(centroids))
		for _, p := range points {
			j := nearest(p, centroids).index
			counts[j]++
			for h := range p {
				sums[j][h] += p[h]
			}
		}
		moved := false
		for j := range centroids {
			if counts[j] == 0 {
				continue
			}
			for h := range sums[j] {
				sums[j][h] /= float64(counts[j])
			}
			if sums[j] != centroids[j] {
				moved = true
				centroids[j] = sums[j]
			}
		}
		if !moved {
			break
		}
	}
	return centroids
}

type hit struct {
	index int
	dist  float64
}

func nearest(p Daily, centroids []Daily) hit {
	best := hit{dist: math.Inf(1)}
	for j, c := range centroids {
		d := 0.0
		for h := range p {
			d += (p[h] - c[h]) * (p[h] - c[h])
		}
		if d < best.dist {
			best = hit{j, d}
		}
	}
	return best
}
