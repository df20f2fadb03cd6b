package dev.floodgate.tools;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** Uses the engine as an embedder does: through the API and the read-only reader only. */
@AnalyzeClasses(packages = "dev.floodgate.tools", importOptions = ImportOption.DoNotIncludeTests.class)
class ApiOnlyTest
{
    @ArchTest
    static final ArchRule usesOnlyTheApiAndTheReader = noClasses()
        .that().resideInAPackage("dev.floodgate.tools..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.floodgate.store..", "dev.floodgate.door..",
            "dev.floodgate.janitor..", "dev.floodgate.cluster..", "dev.floodgate.internal..", "net.openhft..")
        .because("what this module needs from the engine, embedders need too: it belongs in the API");
}
