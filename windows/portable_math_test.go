package windows

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is how many representable floats lie between a and b.
func ulps(a, b float64) uint64 {
	x, y := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if x > y {
		return uint64(x - y)
	}
	return uint64(y - x)
}

// Both sides are within 1 ulp of the exact value, so at most 2 ulps apart
// (amd64's math.Exp is assembly of its own).
func TestPortableLogAndExpAgreeWithTheMathPackage(t *testing.T) {
	const seed = 20261204
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for range 100000 {
		x := math.Ldexp(1+rng.Float64(), rng.IntN(2000)-1000)
		if d := ulps(portableLog(x), math.Log(x)); d > 2 {
			t.Fatalf("portableLog(%v) = %v, math.Log = %v: %d ulps apart", x, portableLog(x), math.Log(x), d)
		}
		y := (rng.Float64() - 0.5) * 1400
		if d := ulps(portableExp(y), math.Exp(y)); d > 2 {
			t.Fatalf("portableExp(%v) = %v, math.Exp = %v: %d ulps apart", y, portableExp(y), math.Exp(y), d)
		}
	}
}

// The bits below were computed on amd64. Run under qemu on arm64 and armv7
// (.ci/cross does), the test fails if any architecture rounds differently.
func TestPortableMathGivesTheSameBitsOnEveryArchitecture(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want uint64
	}{
		{"log(21.5)", portableLog(21.5), 0x40088b5f56565d95},
		{"log(0.001)", portableLog(0.001), 0xc01ba18a998fffa0},
		{"log(1e300)", portableLog(1e300), 0x4085963447f87fb5},
		{"exp(3.0685)", portableExp(3.0685), 0x4035827610e27d97},
		{"exp(-700.5)", portableExp(-700.5), 0xc4ff475c68ca02},
		{"bin value of 21.5", quantileMapping.Value(quantileMapping.Index(21.5)), 0x40358b0405fec510},
		{"bin value of 1e-9", quantileMapping.Value(quantileMapping.Index(1e-9)), 0x3e110d4af35d8413},
		{"smallest indexable value", quantileMapping.MinIndexableValue(), 0x1052bf5a814afd},
		{"largest indexable value", quantileMapping.MaxIndexableValue(), 0x7fe667441e82a920},
	}
	for _, tc := range tests {
		if got := math.Float64bits(tc.got); got != tc.want {
			t.Errorf("%s = %v (%#x), want %#x", tc.name, tc.got, got, tc.want)
		}
	}
}
