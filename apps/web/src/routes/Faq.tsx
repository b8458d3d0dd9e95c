export default function Faq() {
  return null;
}
