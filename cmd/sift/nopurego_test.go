//go:build !purego

package main

const puregoEnabled = false
