package io.archiver.registry;

/** Where schemas are found by id: the registry ({@link SchemaRegistryClient}), or a fixed set in unit tests. */
@FunctionalInterface
public interface SchemaSource {

    /**
     * The schema registered under {@code id}.
     *
     * @throws UndecodablePayload if there is no such schema, access is refused, or it does not parse
     * @throws RegistryUnavailableException if the registry could not be asked
     */
    RegisteredSchema schema(int id) throws UndecodablePayload, RegistryUnavailableException;
}
