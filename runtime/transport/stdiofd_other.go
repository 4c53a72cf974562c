//go:build !unix

package transport

import "os"

func pollable(f *os.File) (*os.File, func(), bool) { return f, func() {}, false }

func sameFile(a, b *os.File) bool { return false }

func tryWriter(f *os.File) func([]byte) (int, error) { return nil }
