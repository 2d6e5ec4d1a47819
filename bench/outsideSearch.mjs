// The search part of the outside-in benchmark: filled in once the service can explain
// which engine request a search sends (so that the raw baseline is that very request).
export async function searchFigures() {
  return { rows: [] };
}
