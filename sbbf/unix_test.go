//go:build unix

package sbbf

const isUnix = true
