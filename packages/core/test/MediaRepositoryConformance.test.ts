import { InMemoryMedia, runMediaRepositoryConformance } from "../src/testing.js"

runMediaRepositoryConformance("in memory", InMemoryMedia.repositoryLayer)
