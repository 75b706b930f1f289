package main

import (
	"flag"

	"boolpool/encoders"
)

// runtimeFlags registers the encoder runtime's flags (--device, --threads)
// on fs; the returned config is filled when fs is parsed. deviceHelp is the
// --device usage text. The runtime itself is opened by app.OpenRuntime.
func runtimeFlags(fs *flag.FlagSet, deviceHelp string) *encoders.Config {
	var cfg encoders.Config
	fs.StringVar(&cfg.Device, "device", encoders.DeviceCPU, deviceHelp)
	fs.IntVar(&cfg.IntraOpThreads, "threads", 0, "ONNX Runtime intra-op threads (0: all CPUs)")
	return &cfg
}
