import { checkInPlace } from './mdl-check.js';

/** Entry point of an MDL-check thread: the same validation as on the event loop, for large documents. */
export default checkInPlace;
