package cluster

import "hash/fnv"

// ShardOf is the shard, in [0, shards), that host belongs to: jump
// consistent hashing (Lamping and Veach, 2014) of the host's FNV-1a hash.
// Every node computes the same answer with no shared state, and growing
// the cluster from S to S+1 shards moves only about 1/(S+1) of the hosts,
// all of them to the new shard.
func ShardOf(host string, shards int) int {
	h := fnv.New64a()
	h.Write([]byte(host))
	return jump(h.Sum64(), shards)
}

// jump is the jump consistent hash of key into n buckets.
func jump(key uint64, n int) int {
	var b, j int64 = -1, 0
	for j < int64(n) {
		b = j
		key = key*2862933555777941757 + 1
		j = int64(float64(b+1) * (float64(int64(1)<<31) / float64((key>>33)+1)))
	}
	return int(b)
}
