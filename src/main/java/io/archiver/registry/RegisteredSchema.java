package io.archiver.registry;

import org.apache.avro.Schema;

/** A schema the registry holds under {@code id}: its type (AVRO, PROTOBUF, JSON) and, for Avro, the parsed schema. */
public record RegisteredSchema(int id, String type, Schema avro) {}
