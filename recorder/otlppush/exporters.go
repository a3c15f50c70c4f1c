package otlppush

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Retries of a busy collector (HTTP 429/502/503/504, gRPC Unavailable…)
// stop after retryFor, so that one batch never holds the queue for
// long; the SDK's default is a minute.
const (
	retryFirst = 250 * time.Millisecond
	retryMax   = time.Second
	retryFor   = 3 * time.Second
)

// exporters builds the span and metric exporters for the protocol of
// each signal. The exporters read the OTEL_EXPORTER_OTLP_* variables
// themselves; an Endpoint option takes the place of the endpoint ones.
func (p *Push) exporters(ctx context.Context) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	base := strings.TrimRight(p.opts.Endpoint, "/")
	var texp sdktrace.SpanExporter
	var err error
	if protocolOf(p.opts.Protocol, "TRACES") == ProtocolGRPC {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: retryFor})}
		if base != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(base))
		}
		texp, err = otlptracegrpc.New(ctx, opts...)
	} else {
		opts := []otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: retryFor})}
		if base != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(base+"/v1/traces"))
		}
		texp, err = otlptracehttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, nil, err
	}

	var mexp sdkmetric.Exporter
	if protocolOf(p.opts.Protocol, "METRICS") == ProtocolGRPC {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{
			Enabled: true, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: retryFor})}
		if base != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(base))
		}
		mexp, err = otlpmetricgrpc.New(ctx, opts...)
	} else {
		opts := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{
			Enabled: true, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: retryFor})}
		if base != "" {
			opts = append(opts, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"))
		}
		mexp, err = otlpmetrichttp.New(ctx, opts...)
	}
	if err != nil {
		texp.Shutdown(ctx)
		return nil, nil, err
	}
	return texp, mexp, nil
}
