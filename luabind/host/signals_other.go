//go:build !unix

package host

func warmSignals() {}
