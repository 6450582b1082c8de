package io.archiver.pipeline;

import io.archiver.metrics.ArchiverMetric;
import io.archiver.registry.RegistryLookups;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** A task's schema lookups as its counters: {@code registryCacheHits}, {@code registryRequests}, {@code registryErrors}. */
final class RegistryLookupCounters implements RegistryLookups {

    private final Counter hits;
    private final Counter requests;
    private final Counter errors;

    RegistryLookupCounters(MetricGroup group) {
        this.hits = ArchiverMetric.REGISTRY_CACHE_HITS.counter(group);
        this.requests = ArchiverMetric.REGISTRY_REQUESTS.counter(group);
        this.errors = ArchiverMetric.REGISTRY_ERRORS.counter(group);
    }

    @Override
    public void cacheHit() {
        hits.inc();
    }

    @Override
    public void requested() {
        requests.inc();
    }

    @Override
    public void failed() {
        errors.inc();
    }
}
