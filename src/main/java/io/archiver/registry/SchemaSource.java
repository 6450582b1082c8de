package io.archiver.registry;

import java.util.OptionalInt;

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

    /**
     * The id of the newest version registered under {@code subject}, or empty when the registry has no such subject
     * or does not say (a source without subjects, a registry refusing the call).
     *
     * @throws RegistryUnavailableException if the registry could not be asked
     */
    default OptionalInt latestId(String subject) throws RegistryUnavailableException {
        return OptionalInt.empty();
    }
}
