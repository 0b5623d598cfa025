# syntax=docker/dockerfile:1
# One image recipe for both services; pick one with --build-arg SERVICE=command-side|query-side
# (docker/compose.yaml does). Build context: the repository root.
# Each stage declares its ARGs as late as possible: a RUN after an ARG is cached per
# value, and the steps above them are the same for both services.

FROM eclipse-temurin:17-jdk AS build
WORKDIR /src

# Without unzip, mvnw switches to Maven's .tar.gz download, which would fail a
# distributionSha256Sum pinned for the .zip.
RUN apt-get update \
 && apt-get install -y --no-install-recommends unzip \
 && rm -rf /var/lib/apt/lists/*

# The wrapper's Maven is downloaded once into this layer, until .mvn/ changes.
COPY mvnw ./
COPY .mvn/ .mvn/
RUN ./mvnw -B --version

# The whole tree, so that the reactor finds every module it lists (a module missing here would
# fail `-pl ... -am` before anything is built); service.Dockerfile.dockerignore keeps build
# output, local data and git's history out. ImageBuildTest fails when a module would be missing.
COPY . ./

# Same wrapper and invocation style as CI (tests already ran there). The local
# repository lives in a BuildKit cache kept across builds; `locked` serialises the
# two service builds, which would otherwise write to it at once.
ARG SERVICE
RUN --mount=type=cache,id=stockade-m2,target=/root/.m2/repository,sharing=locked \
    ./mvnw -B -pl "${SERVICE:?build-arg SERVICE is required}" -am package -DskipTests

FROM eclipse-temurin:17-jre
RUN groupadd --gid 10001 app \
 && useradd --uid 10001 --gid 10001 --create-home --shell /usr/sbin/nologin app
WORKDIR /app
ARG SERVICE
ARG PORT=8080
# Owned by root, so the service cannot rewrite its own jar.
COPY --from=build /src/${SERVICE}/target/${SERVICE}.jar /app/app.jar
# Numeric, so orchestrators can verify runAsNonRoot.
USER 10001:10001
EXPOSE ${PORT}
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/app/app.jar"]
