package monitoreval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/deltaq/deltaq/monitor"
)

// AuctionConfig shapes the SYNTHETIC auction web standing in for the
// paper's 7,550 auction pages (§5): one day of one-minute instants; each
// page is one auction whose bids arrive as a Poisson process whose rate
// rises exponentially towards the auction's end, every bid appending a row.
type AuctionConfig struct {
	Pages    int     `mapstructure:"pages"`
	Instants int     `mapstructure:"instants"`
	MeanBids float64 `mapstructure:"mean_bids"`
	// Spread is σ of the log-normal bid count: a few auctions draw hundreds
	// of bids, most only a handful.
	Spread float64 `mapstructure:"spread"`
	// Rise is the time constant of the rate's rise before the end, in instants.
	Rise float64 `mapstructure:"rise"`
}

// auction draws the synthetic web: auction ends uniform over the day plus
// a day after it (so some end tomorrow), bid counts log-normal with mean
// MeanBids and spread Spread, bid times t = end − Exp(Rise) before the end, the ones inside the
// day kept (several bids in one minute are one change).
func auction(cfg AuctionConfig, life monitor.Life, rng *rand.Rand) *instance {
	in := &instance{name: "SYNTHETIC auction web", n: cfg.Instants}
	for i := range cfg.Pages {
		end := rng.Float64() * 2 * float64(cfg.Instants)
		mu := math.Log(cfg.MeanBids) - cfg.Spread*cfg.Spread/2
		bids := int(math.Exp(mu + cfg.Spread*rng.NormFloat64()))
		var changes []int
		for range bids {
			t := end - rng.ExpFloat64()*cfg.Rise
			if j := int(math.Ceil(t)); j >= 1 && j <= cfg.Instants {
				changes = append(changes, j)
			}
		}
		slices.Sort(changes)
		in.pages = append(in.pages, page{url: fmt.Sprintf("auction/%d", i), life: life, changes: slices.Compact(changes)})
	}
	return in
}
