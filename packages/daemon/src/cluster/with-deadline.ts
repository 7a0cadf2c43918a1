/** The promise's value, or undefined once `ms` passed (or it failed): for steps that must not hold up a shutdown. */
export async function withDeadline<T>(promise: Promise<T> | undefined, ms: number): Promise<T | undefined> {
  if (promise === undefined) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
