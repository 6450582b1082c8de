package io.archiver.registry;

/**
 * What one task's lookups of schemas by id cost, told lookup by lookup: the JVM's client and its cache are shared by
 * every task ({@link SchemaRegistryClient#shared}), so only the task that asks can count its own.
 */
public interface RegistryLookups {

    /** Counts nothing. */
    RegistryLookups NONE = new RegistryLookups() {
        @Override
        public void cacheHit() {}

        @Override
        public void requested() {}

        @Override
        public void failed() {}
    };

    /** The schema was in the cache. */
    void cacheHit();

    /** The registry was asked for it (each lookup once, however many retries it took). */
    void requested();

    /** The lookup failed: the registry did not answer in time, or has no such schema, or one that cannot be used. */
    void failed();
}
