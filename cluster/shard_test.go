package cluster

import (
	"fmt"
	"testing"
)

func TestShardOfSpreadsHostsAndMovesFewWhenShardsGrow(t *testing.T) {
	const hosts = 20000
	for _, shards := range []int{1, 3, 16, 64} {
		t.Run(fmt.Sprintf("%d shards", shards), func(t *testing.T) {
			count := make([]int, shards)
			moved := 0
			for i := range hosts {
				h := fmt.Sprintf("host-%d.example", i)
				s := ShardOf(h, shards)
				if s < 0 || s >= shards {
					t.Fatalf("ShardOf(%q, %d) = %d, out of range", h, shards, s)
				}
				if ShardOf(h, shards) != s {
					t.Fatalf("ShardOf(%q, %d) is not deterministic", h, shards)
				}
				count[s]++
				if grown := ShardOf(h, shards+1); grown != s {
					if grown != shards {
						t.Fatalf("growing to %d shards moved %q from %d to %d, not to the new shard", shards+1, h, s, grown)
					}
					moved++
				}
			}
			mean := float64(hosts) / float64(shards)
			for s, n := range count {
				if float64(n) < 0.8*mean || float64(n) > 1.2*mean {
					t.Errorf("shard %d holds %d hosts, mean %.0f: not within 20%%", s, n, mean)
				}
			}
			// The new shard takes its fair share, 1/(S+1), and no more.
			if want := float64(hosts) / float64(shards+1); float64(moved) < 0.8*want || float64(moved) > 1.2*want {
				t.Errorf("growing to %d shards moved %d hosts, want about %.0f", shards+1, moved, want)
			}
		})
	}
}
